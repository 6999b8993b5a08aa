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
0 -0.00510634457 -0.0150612934 0.0048486043 -0.0058691804 -0.0138137587 0.00207539791 "variant=ue5m3"
1 -0.00287507124 -0.0143670578 0.00861691536 -0.00378108261 -0.0160534721 0.00849130688 "variant=window32"
2 -0.00382314031 -0.0263975978 0.0187513172 -0.0016064598 -0.0247815853 0.0215686657 "variant=4over6_rht_sr_q448"
3 6.07721374e-05 -0.0122941009 0.0124156452 0.000561883332 -0.0137276042 0.0148513709 "variant=4over6_rht_sr_q256"
4 0.00604389851 -0.0263514903 0.0384392873 0.00546560042 -0.0319751709 0.0429063718 "variant=scale_round_up"
5 0.00933639966 -0.0123739922 0.0310467915 0.0117646744 -0.0103378533 0.0338672022 "variant=scale_round_down"
6 -0.00221293417 -0.0120008632 0.00757499482 -0.00328772021 -0.0124855742 0.00591013376 "variant=fp8_dpa"
EOD
set title "Loss gap to the baseline per config\nmean over seeds; bars: 95% CI (Student t; none with one seed)"
set xrange [-0.6:6.6]
set xtics rotate by -25 left
set bmargin 8
set xzeroaxis lt 1 lc rgb '#555555'
set ylabel 'gap to baseline (nats/token)'
set xlabel 'config'
plot $gaps using ($1-0.08):2:3:4:xtic(8) with yerrorbars pt 7 ps 1.2 lc rgb '#0072B2' title 'converged window: last 25% of paired steps (train loss)', \
     $gaps using ($1+0.08):5:6:7 with yerrorbars pt 5 ps 1.1 lc rgb '#D55E00' title 'final loss (validation if logged, else smoothed train)'
unset output
