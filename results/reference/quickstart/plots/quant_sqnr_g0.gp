# fp4lab plot 'quant_sqnr_g0' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g0.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g0.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g0.' . fmt
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
2048 55.5865562 0 0 1
131072 55.5922211 0 0 64
262144 55.5697212 0 0 128
393216 55.6097786 0 0 192
524288 55.6027603 0 0 256
655360 55.5890709 0 0 320
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4965253 0.0902155924 0.0348250191 1
131072 20.5138012 0.102799292 0.0348518251 64
262144 20.5719131 0.109826363 0.0343188151 128
393216 20.5797753 0.110120271 0.0343125056 192
524288 20.5627716 0.107792476 0.034738668 256
655360 20.5384488 0.106322195 0.0344677031 320
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.6283913 0 0 64
262144 55.6982254 0 0 128
393216 55.6343102 0 0 192
524288 55.6175133 0 0 256
655360 55.6113564 0 0 320
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0673796 0.10098315 0.00238844453 1
131072 19.0567387 0.100642 0.0024302972 64
262144 18.9528269 0.108917204 0.00238599021 128
393216 18.9198915 0.109939236 0.00240743324 192
524288 18.9077714 0.109495262 0.00238921957 256
655360 18.9020831 0.108641545 0.00237178096 320
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0330086 0 0 1
131072 57.6026253 0 0 64
262144 57.5017433 0 0 128
393216 57.4090187 0 0 192
524288 57.397657 0 0 256
655360 57.3054398 0 0 320
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3084386 0.112727949 0.0341770536 1
131072 17.2987108 0.133277324 0.0341485826 64
262144 17.3450626 0.151962425 0.033984254 128
393216 17.3291147 0.152238906 0.0339430552 192
524288 17.3330107 0.149597701 0.0339906842 256
655360 17.3446008 0.148419747 0.0339660705 320
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.6283913 0 0 64
262144 55.6982254 0 0 128
393216 55.6343102 0 0 192
524288 55.6175133 0 0 256
655360 55.6113564 0 0 320
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0673796 0.10098315 0.00238844453 1
131072 19.0567387 0.100642 0.0024302972 64
262144 18.9528269 0.108917204 0.00238599021 128
393216 18.9198915 0.109939236 0.00240743324 192
524288 18.9077714 0.109495262 0.00238921957 256
655360 18.9020831 0.108641545 0.00237178096 320
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0330086 0 0 1
131072 57.6026253 0 0 64
262144 57.5017433 0 0 128
393216 57.4090187 0 0 192
524288 57.397657 0 0 256
655360 57.3054398 0 0 320
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.184367 0.0723610952 0.035081052 1
131072 17.0365195 0.0606194571 0.0352750989 64
262144 17.0055463 0.057636721 0.0355480679 128
393216 16.9759613 0.0571628209 0.0354524096 192
524288 16.9887562 0.0567316145 0.035602079 256
655360 16.9801828 0.0564040958 0.0356454698 320
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5865562 0 0 1
131072 55.5922211 0 0 64
262144 55.5697212 0 0 128
393216 55.6097786 0 0 192
524288 55.6027603 0 0 256
655360 55.5890709 0 0 320
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7715408 0.0864407373 0.0358532559 1
131072 20.5131908 0.0740146695 0.0349231357 64
262144 20.392042 0.0668378075 0.0348153857 128
393216 20.3780023 0.0660025401 0.0346331704 192
524288 20.3731154 0.0657149781 0.0347204419 256
655360 20.3665112 0.0657808277 0.034738807 320
EOD
set title "Quantization SQNR over training: recipe=nvfp4\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 e4m3 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 e4m3 2d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16]'
unset output
