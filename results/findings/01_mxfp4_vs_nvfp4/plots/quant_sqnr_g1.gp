# fp4lab plot 'quant_sqnr_g1' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g1.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g1.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g1.' . fmt
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
$q0 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5898304 0 0 1
262144 55.5939147 0 0 128
524288 55.5599753 0 0 256
786432 55.5614382 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.5836704 0.114092347 0.021456673 1
262144 18.4077587 0.144613831 0.0247068355 128
524288 18.3275757 0.146631064 0.022518602 256
786432 18.3353311 0.145242746 0.0214054875 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6813869 0 0 128
524288 55.6538531 0 0 256
786432 55.5786451 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8570491 0.0830976967 0.0191559968 1
262144 18.751715 0.0821388955 0.0261133588 128
524288 18.7486205 0.083125577 0.0240136202 256
786432 18.7405693 0.0822762522 0.0236372906 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.499567 0 0 128
524288 57.4334564 0 0 256
786432 57.3307832 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2770185 0.145575478 0.0235010834 1
262144 17.857561 0.231846718 0.0207716171 128
524288 17.8104762 0.237960831 0.0207356196 256
786432 17.8264508 0.233349886 0.0207326526 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6813869 0 0 128
524288 55.6538531 0 0 256
786432 55.5786451 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8573772 0.083133758 0.0191603027 1
262144 18.7034053 0.0849640594 0.0250857721 128
524288 18.6930354 0.0851749372 0.0246723046 256
786432 18.6805437 0.0841661889 0.0246903892 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.499567 0 0 128
524288 57.4334564 0 0 256
786432 57.3307832 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8180359 0.0819901965 0.0255633157 1
262144 18.9284402 0.0741789528 0.0276016911 128
524288 18.9330533 0.0731390546 0.028036168 256
786432 18.9343487 0.0728247861 0.0282908899 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5898304 0 0 1
262144 55.5939147 0 0 128
524288 55.5599753 0 0 256
786432 55.5614382 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7753552 0.0951173314 0.023708399 1
262144 18.7716271 0.0858956195 0.0242634777 128
524288 18.7831929 0.0842434414 0.0248845065 256
786432 18.7845998 0.0841069847 0.0248735922 384
EOD
set title "Quantization SQNR over training: format=mxfp4, train.tokens=786432\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/32 ue8m0-floor 1d rne rht32]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/32 ue8m0-floor 1d rne rht32]'
unset output
