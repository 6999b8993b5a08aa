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
2048 55.5848877 0 0 1
131072 55.5914154 0 0 64
262144 55.5901817 0 0 128
393216 55.5907837 0 0 192
524288 55.5695801 0 0 256
655360 55.6042427 0 0 320
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4966844 0.0902215203 0.0348263391 1
131072 20.5029345 0.103676672 0.0345464434 64
262144 20.586512 0.10760716 0.0344250391 128
393216 20.5931866 0.108105971 0.0343128146 192
524288 20.5642625 0.107125479 0.0343241252 256
655360 20.5598049 0.105560418 0.0342534324 320
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.6434998 0 0 64
262144 55.6600204 0 0 128
393216 55.6389458 0 0 192
524288 55.5976982 0 0 256
655360 55.5199623 0 0 320
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0673796 0.10098315 0.00238844453 1
131072 19.0628914 0.100504041 0.00245806982 64
262144 18.9292572 0.109325397 0.00241531291 128
393216 18.9197398 0.109702329 0.00242190084 192
524288 18.9119322 0.108830915 0.00242706783 256
655360 18.9088701 0.10861106 0.00241053344 320
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0326881 0 0 1
131072 57.6076874 0 0 64
262144 57.454557 0 0 128
393216 57.3613007 0 0 192
524288 57.3734108 0 0 256
655360 57.3350182 0 0 320
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3124791 0.112737662 0.034191731 1
131072 17.315216 0.130920901 0.0342041803 64
262144 17.3343397 0.150396105 0.033957672 128
393216 17.3519015 0.150580077 0.0339638303 192
524288 17.3290464 0.148898013 0.0339534458 256
655360 17.3408626 0.147453581 0.0339959463 320
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.6434998 0 0 64
262144 55.6600204 0 0 128
393216 55.6389458 0 0 192
524288 55.5976982 0 0 256
655360 55.5199623 0 0 320
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0673796 0.10098315 0.00238844453 1
131072 19.0628914 0.100504041 0.00245806982 64
262144 18.9292572 0.109325397 0.00241531291 128
393216 18.9197398 0.109702329 0.00242190084 192
524288 18.9119322 0.108830915 0.00242706783 256
655360 18.9088701 0.10861106 0.00241053344 320
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0326881 0 0 1
131072 57.6076874 0 0 64
262144 57.454557 0 0 128
393216 57.3613007 0 0 192
524288 57.3734108 0 0 256
655360 57.3350182 0 0 320
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.181944 0.0723973411 0.0351654234 1
131072 17.0223933 0.0603111388 0.0352233765 64
262144 16.9835536 0.0571862235 0.0355580589 128
393216 16.9997002 0.0570575897 0.0354635268 192
524288 16.9888571 0.0569358825 0.0356261783 256
655360 16.9851831 0.0566558475 0.0355603777 320
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5848877 0 0 1
131072 55.5914154 0 0 64
262144 55.5901817 0 0 128
393216 55.5907837 0 0 192
524288 55.5695801 0 0 256
655360 55.6042427 0 0 320
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7717138 0.0864298382 0.0358585418 1
131072 20.4958961 0.072949933 0.0348806957 64
262144 20.3869935 0.0667467815 0.0346476661 128
393216 20.3786358 0.0662822358 0.0347708444 192
524288 20.3665523 0.065808172 0.0349128663 256
655360 20.3642075 0.0656890381 0.0349268715 320
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
