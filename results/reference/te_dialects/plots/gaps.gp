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
0 0.0274036436 -0.0136128185 0.0684201057 0.0283553205 -0.00469672241 0.0614073634 "variant=nvfp4"
1 0.017055555 -0.0388256739 0.0729367838 0.0193029533 -0.0409815321 0.0795874387 "variant=te_nvfp4"
2 0.0183614874 -0.000333406847 0.0370563816 0.0263946567 -0.0104263574 0.0632156708 "variant=te_nvfp4_no_rht"
3 0.0152761129 -0.0432032391 0.0737554648 0.0205340873 -0.0236027476 0.0646709223 "variant=nvfp4_mlp"
4 0.0131106258 -0.0187734036 0.0449946552 0.0128716037 -0.00920966758 0.0349528751 "variant=nvfp4_mlp_no_rht"
5 0.0211886523 -0.000146532724 0.0425238373 0.0281845987 -0.00281828746 0.0591874849 "variant=4over6_mae_448"
6 0.0268710495 0.014160808 0.0395812911 0.0296299493 -0.00066722045 0.059927119 "variant=4over6_mse_448"
7 0.025291931 -0.00984373473 0.0604275968 0.025370926 -0.0197483106 0.0704901625 "variant=4over6_mae_256"
8 0.0211479867 -0.0256040149 0.0678999883 0.0202130923 -0.0325777741 0.0730039587 "variant=te_nvfp4_1d_weight"
9 0.00484247526 0.00353220781 0.00615274271 0.00912968372 -0.00946891405 0.0277282815 "variant=fp8"
10 0.00713513317 -0.0370925564 0.0513628227 0.00625700447 -0.0482373452 0.0607513541 "variant=fp8_delayed"
11 0.0125949601 -0.0369246127 0.0621145329 0.0140382429 -0.0433032869 0.0713797727 "variant=row_scaled_x"
EOD
set title "Loss gap to the baseline per config\nmean over seeds; bars: 95% CI (Student t; none with one seed)"
set xrange [-0.6:11.6]
set xtics rotate by -25 left
set bmargin 8
set xzeroaxis lt 1 lc rgb '#555555'
set ylabel 'gap to baseline (nats/token)'
set xlabel 'config'
plot $gaps using ($1-0.08):2:3:4:xtic(8) with yerrorbars pt 7 ps 1.2 lc rgb '#0072B2' title 'converged window: last 25% of paired steps (train loss)', \
     $gaps using ($1+0.08):5:6:7 with yerrorbars pt 5 ps 1.1 lc rgb '#D55E00' title 'final loss (validation if logged, else smoothed train)'
unset output
