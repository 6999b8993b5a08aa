# fp4lab plot 'scaling_loss_gap' (written by fp4lab; data inline).
# Re-render: gnuplot scaling_loss_gap.gp   or   gnuplot -e "fmt='svg'" scaling_loss_gap.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'scaling_loss_gap.' . fmt
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
26624 0.0414891206 -0.0262326319 0.109210873 0
106496 0.0256146793 -0.0408141269 0.0920434855 0
331776 0.0239102188 0.00559683612 0.0422236015 0
802816 0.0431761105 0.0299057359 0.0564464851 0
EOD
f0(x) = -0.0711759691 + 0.018799621 * log10(x)
$s1 << EOD
# params mean lo hi bound
27688.96 0.0310031267 -0.010413177 0.0724194304 0
110755.84 0.00362592726 -0.0547558773 0.0620077318 0
345047.04 0.0192047226 0.00221110024 0.036198345 0
834928.64 0.0140154404 0.00298227097 0.0250486098 0
EOD
f1(x) = 0.0682149132 + -0.00914642024 * log10(x)
set title "Loss gap against model size\nfinal loss A - B (nats); bars: CI over seeds; dashed: fit"
set logscale x
set format x '%.0e'
set xrange [17749.3333:1204224]
set samples 200
set xlabel 'non-embedding parameters N'
set ylabel 'loss gap A - B (nats/token)'
set xzeroaxis lt 1 lc rgb '#555555'
plot $s0 using 1:($5 == 0 ? $2 : NaN):($5 == 0 ? $3 : NaN):($5 == 0 ? $4 : NaN) with yerrorbars pt 7 ps 1.2 lc rgb '#0072B2' title 'recipe=mxfp4 − recipe=nvfp4', \
     [26624:802816] f0(x) with lines lw 2 dt 2 lc rgb '#0072B2' title 'fit: b = +0.0188 [-0.0045, +0.0411]', \
     $s1 using 1:($5 == 0 ? $2 : NaN):($5 == 0 ? $3 : NaN):($5 == 0 ? $4 : NaN) with yerrorbars pt 7 ps 1.2 lc rgb '#D55E00' title 'recipe=nvfp4 − recipe=bf16', \
     [26624:802816] f1(x) with lines lw 2 dt 2 lc rgb '#D55E00' title 'fit: b = -0.00915 [-0.0263, +0.00577]'
unset output
