# fp4lab plot 'gaps' (written by fp4lab; data inline).
# Re-render: gnuplot gaps.gp   or   gnuplot -e "fmt='svg'" gaps.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'gaps.' . fmt
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
$gaps << EOD
# x conv conv_lo conv_hi final final_lo final_hi label
0 0.0207100618 0.00824671565 0.033173408 0.0203019377 0.00714952169 0.0334543537 "budget=1.0, recipe=nvfp4"
1 0.050278478 0.0225588242 0.0779981319 0.111802259 0.0746157517 0.148988765 "budget=0.8, recipe=mxfp4"
2 0.0465373438 0.0379406472 0.0551340405 0.046980191 0.0348749238 0.0590854581 "budget=1.0, recipe=mxfp4"
3 0.0497613826 0.0298112585 0.0697115066 -0.063721436 -0.0872452104 -0.0401976617 "budget=1.6, recipe=mxfp4"
EOD
set title "Loss gap to the baseline per config\nmean over seeds; bars: 95% CI (Student t; none with one seed)"
set xrange [-0.6:3.6]
set xtics rotate by -25 left
set bmargin 8
set xzeroaxis lt 1 lc rgb '#555555'
set ylabel 'gap to baseline (nats/token)'
set xlabel 'config'
plot $gaps using ($1-0.08):2:3:4:xtic(8) with yerrorbars pt 7 ps 1.2 lc rgb '#0072B2' title 'converged window: last 25% of paired steps (train loss)', \
     $gaps using ($1+0.08):5:6:7 with yerrorbars pt 5 ps 1.1 lc rgb '#D55E00' title 'final loss (validation if logged, else smoothed train)'
unset output
