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
2048 55.6144015 0 0 1
262144 55.5625032 0 0 128
524288 55.5805391 0 0 256
786432 55.5668971 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4116152 0.0663617703 0.0344290103 1
262144 20.3162462 0.0635121767 0.0342056335 128
524288 20.2936253 0.0644961512 0.0346978758 256
786432 20.2608227 0.0642022885 0.0341884622 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.668005 0 0 128
524288 55.632356 0 0 256
786432 55.6144015 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0696688 0.100609943 0.00246541125 1
262144 18.8403871 0.115047502 0.00238327753 128
524288 18.8162786 0.114650827 0.00238080168 256
786432 18.8149169 0.113682984 0.00234753913 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1371307 0 0 1
262144 57.4699491 0 0 128
524288 57.3915939 0 0 256
786432 57.3436108 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1873568 0.0652665085 0.0344845857 1
262144 17.145567 0.062127946 0.0350889831 128
524288 17.1513366 0.0622003495 0.0351923535 256
786432 17.1300518 0.0625240185 0.0350975814 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.668005 0 0 128
524288 55.632356 0 0 256
786432 55.6144015 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0624119 0.10133203 0.00240383787 1
262144 18.9357879 0.109090277 0.00236153308 128
524288 18.9185622 0.109748423 0.00241740125 256
786432 18.9346134 0.109955318 0.00237692643 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1371307 0 0 1
262144 57.4699491 0 0 128
524288 57.3915939 0 0 256
786432 57.3436108 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1918298 0.0722633189 0.035395844 1
262144 16.9938937 0.0573636665 0.0355130857 128
524288 16.9850509 0.0567486022 0.0354357674 256
786432 16.9660014 0.05615357 0.0357529323 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6144015 0 0 1
262144 55.5625032 0 0 128
524288 55.5805391 0 0 256
786432 55.5668971 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7681073 0.0864312056 0.0357133625 1
262144 20.3917444 0.0669468671 0.0347806991 128
524288 20.3641338 0.0656203871 0.0349527641 256
786432 20.3598108 0.0654059923 0.0347696083 384
EOD
set title "Quantization SQNR over training: variant=rht_all\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 e4m3 1d rne rht16]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 e4m3 2d rne rht16]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr rht16]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne rht16]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16]'
unset output
