# fp4lab plot 'quant_sqnr_g3' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g3.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g3.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g3.' . fmt
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
262144 55.5876611 0 0 128
524288 55.5665798 0 0 256
786432 55.5752646 0 0 384
1048576 55.5664876 0 0 512
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.5836704 0.114092347 0.021456673 1
262144 18.3973653 0.142838393 0.0254179637 128
524288 18.3473715 0.149084248 0.0208654455 256
786432 18.3321735 0.149362196 0.0203952589 384
1048576 18.3391685 0.147212427 0.0199664535 512
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6579132 0 0 128
524288 55.6366851 0 0 256
786432 55.518357 0 0 384
1048576 55.6584543 0 0 512
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8570491 0.0830976967 0.0191559968 1
262144 18.7315451 0.0823617225 0.0265741903 128
524288 18.7369483 0.0833505569 0.0241232036 256
786432 18.67266 0.083025897 0.0250651041 384
1048576 18.6452519 0.0831960853 0.0252685547 512
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.4371166 0 0 128
524288 57.3520565 0 0 256
786432 57.2991854 0 0 384
1048576 57.2944864 0 0 512
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2770185 0.145575478 0.0235010834 1
262144 17.8412209 0.234279991 0.0207540674 128
524288 17.8097121 0.243298395 0.0206672527 256
786432 17.7924387 0.240173637 0.0206929717 384
1048576 17.8089777 0.237538776 0.0206789289 512
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6579132 0 0 128
524288 55.6366851 0 0 256
786432 55.518357 0 0 384
1048576 55.6584543 0 0 512
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8573772 0.083133758 0.0191603027 1
262144 18.6974021 0.0850698753 0.0251165589 128
524288 18.6818793 0.0856729068 0.0243010345 256
786432 18.6271317 0.0852584705 0.0253485356 384
1048576 18.6083183 0.0854783909 0.0253880415 512
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.4371166 0 0 128
524288 57.3520565 0 0 256
786432 57.2991854 0 0 384
1048576 57.2944864 0 0 512
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8180359 0.0819901965 0.0255633157 1
262144 18.9257926 0.0739889753 0.0279680131 128
524288 18.946884 0.0728760422 0.0281884026 256
786432 18.9424355 0.0722440385 0.0285767096 384
1048576 18.953797 0.0720975462 0.0286811394 512
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5898304 0 0 1
262144 55.5876611 0 0 128
524288 55.5665798 0 0 256
786432 55.5752646 0 0 384
1048576 55.5664876 0 0 512
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7753552 0.0951173314 0.023708399 1
262144 18.7652026 0.0859865617 0.0244584915 128
524288 18.7773444 0.0841227179 0.0251835314 256
786432 18.7830656 0.0836162161 0.0252095329 384
1048576 18.7938115 0.083701078 0.0249947846 512
EOD
set title "Quantization SQNR over training: format=mxfp4, train.tokens=1179648\nmean over tensors and seeds, per GEMM operand"
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
