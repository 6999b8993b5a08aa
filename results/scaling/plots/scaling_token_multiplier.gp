# fp4lab plot 'scaling_token_multiplier' (written by fp4lab; data inline).
# Re-render: gnuplot scaling_token_multiplier.gp   or   gnuplot -e "fmt='svg'" scaling_token_multiplier.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'scaling_token_multiplier.' . fmt
if (fmt eq 'svg') {
  set terminal svg noenhanced size 960,600 dynamic background rgb 'white' font 'Sans,12'
} else {
  set terminal pngcairo noenhanced size 960,600 font 'Sans,10'
}
set output out
set encoding utf8
set grid lc rgb '#dddddd'
set key below center horizontal Left reverse noautotitle
set offsets 0, 0, graph 0.06, graph 0.06
$s0 << EOD
# params mean lo hi bound
26624 1.12581874 0.873590839 1.37804665 0
106496 1.06312963 0.897919818 1.22833944 0
331776 1.18183972 1.03972057 1.32395888 0
802816 1.25720842 1.1525986 1.36181823 0
EOD
f0(x) = exp(-0.487514208) * x**(0.0518510389)
$s1 << EOD
# params mean lo hi bound
27688.96 1 1 1 1
110755.84 0.903138424 0.903138424 0.903138424 1
345047.04 1 1 1 1
834928.64 0.998590256 0.998590256 0.998590256 1
EOD
set title "Token multiplier against model size\ntokens A needs to reach B's final loss / B's tokens; bars: CI over seeds; dashed: fit"
set logscale x
set format x '%.0e'
set xrange [17749.3333:1204224]
set samples 200
set xlabel 'non-embedding parameters N'
set logscale y
set ylabel '1 + token gap'
set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#555555'
plot $s0 using 1:($5 == 0 ? $2 : NaN):($5 == 0 ? $3 : NaN):($5 == 0 ? $4 : NaN) with yerrorbars pt 7 ps 1.2 lc rgb '#0072B2' title 'recipe=mxfp4 − recipe=nvfp4', \
     $s0 using 1:($5 == 1 ? $2 : NaN) with points pt 9 ps 1.6 lc rgb '#0072B2' title 'recipe=mxfp4 − recipe=nvfp4: censored (bound)', \
     [26624:802816] f0(x) with lines lw 2 dt 2 lc rgb '#0072B2' title 'fit: b = +0.0519 [+0.0155, +0.0854]', \
     $s1 using 1:($5 == 0 ? $2 : NaN):($5 == 0 ? $3 : NaN):($5 == 0 ? $4 : NaN) with yerrorbars pt 7 ps 1.2 lc rgb '#D55E00' title 'recipe=nvfp4 − recipe=bf16', \
     $s1 using 1:($5 == 1 ? $2 : NaN) with points pt 9 ps 1.6 lc rgb '#D55E00' title 'recipe=nvfp4 − recipe=bf16: censored (bound)'
unset output
