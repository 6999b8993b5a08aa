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
131072 55.5895752 0 0 64
262144 55.5892456 0 0 128
393216 55.5882072 0 0 192
524288 55.5735039 0 0 256
655360 55.5893867 0 0 320
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4966844 0.0902215203 0.0348263391 1
131072 20.531963 0.103129729 0.0345888047 64
262144 20.5817919 0.107783387 0.0343903195 128
393216 20.5648488 0.10881898 0.0346613264 192
524288 20.5467244 0.108036628 0.0342366048 256
655360 20.5242374 0.106671657 0.0342404382 320
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.639772 0 0 64
262144 55.6602104 0 0 128
393216 55.637709 0 0 192
524288 55.556929 0 0 256
655360 55.5484604 0 0 320
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0673796 0.10098315 0.00238844453 1
131072 19.0614554 0.0998103712 0.00243572255 64
262144 18.9588089 0.108299877 0.00244954427 128
393216 18.9257784 0.108534717 0.00234026227 192
524288 18.9173797 0.108319383 0.00238508598 256
655360 18.9114533 0.107754371 0.00240368717 320
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0326881 0 0 1
131072 57.6199913 0 0 64
262144 57.5424217 0 0 128
393216 57.35644 0 0 192
524288 57.3351189 0 0 256
655360 57.3271271 0 0 320
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3124791 0.112737662 0.034191731 1
131072 17.283231 0.130541217 0.0342044951 64
262144 17.3320646 0.148502925 0.0340163701 128
393216 17.3493671 0.149880685 0.0340173509 192
524288 17.3339894 0.149209092 0.0340102362 256
655360 17.3514586 0.14763886 0.0339581323 320
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.639772 0 0 64
262144 55.6602104 0 0 128
393216 55.637709 0 0 192
524288 55.556929 0 0 256
655360 55.5484604 0 0 320
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0673796 0.10098315 0.00238844453 1
131072 19.0614554 0.0998103712 0.00243572255 64
262144 18.9588089 0.108299877 0.00244954427 128
393216 18.9257784 0.108534717 0.00234026227 192
524288 18.9173797 0.108319383 0.00238508598 256
655360 18.9114533 0.107754371 0.00240368717 320
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0326881 0 0 1
131072 57.6199913 0 0 64
262144 57.5424217 0 0 128
393216 57.35644 0 0 192
524288 57.3351189 0 0 256
655360 57.3271271 0 0 320
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.181944 0.0723973411 0.0351654234 1
131072 17.0149029 0.0597661275 0.0352565039 64
262144 16.9667832 0.0574889771 0.0353969334 128
393216 16.9903586 0.0569425251 0.0357084001 192
524288 16.9751134 0.0566378092 0.0356259604 256
655360 16.9777283 0.0564508529 0.035578967 320
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5848877 0 0 1
131072 55.5895752 0 0 64
262144 55.5892456 0 0 128
393216 55.5882072 0 0 192
524288 55.5735039 0 0 256
655360 55.5893867 0 0 320
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7717138 0.0864298382 0.0358585418 1
131072 20.4553867 0.07182022 0.0347490702 64
262144 20.3979168 0.0670810818 0.0348139084 128
393216 20.3840206 0.0660799843 0.0346892585 192
524288 20.3821127 0.0658066892 0.0347762518 256
655360 20.3736673 0.065797388 0.0346435246 320
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
