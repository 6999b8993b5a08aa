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
0 0.0161719492 0.00577176036 0.026572138 0.0143507542 -0.000967599148 0.0296691075 "budget=1.0, recipe=nvfp4"
1 0.0527812687 0.00558165173 0.0999808857 0.113854937 0.0537695804 0.173940294 "budget=0.8, recipe=mxfp4"
2 0.0458345572 0.0322397023 0.0594294122 0.0431786032 0.029645458 0.0567117484 "budget=1.0, recipe=mxfp4"
3 0.0549947583 0.0245217304 0.0854677863 0.00735727367 -0.0323736295 0.0470881768 "budget=1.25, recipe=mxfp4"
4 0.0540592301 0.017480706 0.0906377542 -0.05911915 -0.101103977 -0.0171343233 "budget=1.6, recipe=mxfp4"
EOD
set title "Loss gap to the baseline per config\nmean over seeds; bars: 95% CI (Student t; none with one seed)"
set xrange [-0.6:4.6]
set xtics rotate by -25 left
set bmargin 8
set xzeroaxis lt 1 lc rgb '#555555'
set ylabel 'gap to baseline (nats/token)'
set xlabel 'config'
plot $gaps using ($1-0.08):2:3:4:xtic(8) with yerrorbars pt 7 ps 1.2 lc rgb '#0072B2' title 'converged window: last 25% of paired steps (train loss)', \
     $gaps using ($1+0.08):5:6:7 with yerrorbars pt 5 ps 1.1 lc rgb '#D55E00' title 'final loss (validation if logged, else smoothed train)'
unset output
