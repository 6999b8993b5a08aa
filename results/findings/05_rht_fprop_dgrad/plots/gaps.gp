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
0 0.0113653066 -0.0033306093 0.0260612225 0.0102985698 -0.00533739123 0.0259345308 "variant=rht_all"
EOD
set title "Loss gap to the baseline per config\nmean over seeds; bars: 95% CI (Student t; none with one seed)"
set xrange [-0.6:0.6]
set xtics rotate by -25 left
set bmargin 8
set xzeroaxis lt 1 lc rgb '#555555'
set ylabel 'gap to baseline (nats/token)'
set xlabel 'config'
plot $gaps using ($1-0.08):2:3:4:xtic(8) with yerrorbars pt 7 ps 1.2 lc rgb '#0072B2' title 'converged window: last 25% of paired steps (train loss)', \
     $gaps using ($1+0.08):5:6:7 with yerrorbars pt 5 ps 1.1 lc rgb '#D55E00' title 'final loss (validation if logged, else smoothed train)'
unset output
