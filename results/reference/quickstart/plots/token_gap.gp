# fp4lab plot 'token_gap' (written by fp4lab; data inline).
# Re-render: gnuplot token_gap.gp   or   gnuplot -e "fmt='svg'" token_gap.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'token_gap.' . fmt
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
$tok << EOD
# x gap_pct lo hi censored label
0 6.77466518 6.77466518 6.77466518 1 "budget=1.0, recipe=nvfp4"
1 -4.18860491 -4.18860491 -4.18860491 1 "budget=0.8, recipe=mxfp4"
2 14.6588603 14.6588603 14.6588603 1 "budget=1.0, recipe=mxfp4"
3 24.0517867 12.9318768 35.1716967 0 "budget=1.6, recipe=mxfp4"
EOD
set title "Extra tokens to reach the target loss (target: baseline_final)\nT_config / T_baseline - 1, mean over seeds; bars: 95% CI"
set xrange [-0.6:3.6]
set xtics rotate by -25 left
set bmargin 8
set xzeroaxis lt 1 lc rgb '#555555'
set ylabel 'token gap (%)'
set xlabel 'config'
plot $tok using 1:($5 == 0 ? $2 : NaN):($5 == 0 ? $3 : NaN):($5 == 0 ? $4 : NaN):xtic(6) with yerrorbars pt 7 ps 1.2 lc rgb '#0072B2' title 'reached the target', \
     $tok using 1:($5 == 1 ? $2 : NaN) with points pt 9 ps 1.6 lc rgb '#D55E00' title 'never reached within budget (lower bound)', \
     $tok using 1:($5 == 1 ? $2 : NaN):(sprintf('> %.1f%%', $2)) with labels offset 0,1.2 notitle
unset output
