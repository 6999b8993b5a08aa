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
2048 55.5963459 0 0 1
262144 55.5645351 0 0 128
524288 55.5906061 0 0 256
786432 55.5792484 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4976 0.0900596791 0.0346097798 1
262144 20.5751658 0.110743785 0.0345049107 128
524288 20.600032 0.110757525 0.0345078625 256
786432 20.5771159 0.108191561 0.0341064666 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6852811 0 0 128
524288 55.6052996 0 0 256
786432 55.5514755 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4254611 0.0679960703 0.0345234006 1
262144 20.3821724 0.0662386454 0.0346085483 128
524288 20.3724664 0.0668685885 0.0347015543 256
786432 20.339513 0.0668502888 0.0346259868 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1758887 0 0 1
262144 57.4764239 0 0 128
524288 57.3438015 0 0 256
786432 57.3078283 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.307402 0.112670777 0.0341976205 1
262144 17.3216104 0.151484732 0.0339564016 128
524288 17.3719112 0.152142096 0.0340154789 256
786432 17.356685 0.148695088 0.0339442157 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6852811 0 0 128
524288 55.6052996 0 0 256
786432 55.5514755 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4355826 0.0680535533 0.0346581729 1
262144 20.4298475 0.0687256934 0.0345456832 128
524288 20.4247092 0.0686836039 0.0345793764 256
786432 20.4310142 0.0681625987 0.0345654902 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1758887 0 0 1
262144 57.4764239 0 0 128
524288 57.3438015 0 0 256
786432 57.3078283 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1917706 0.0723342036 0.0352177544 1
262144 16.9841811 0.0575320531 0.0357308111 128
524288 16.9867385 0.0567849678 0.0356426491 256
786432 16.9677513 0.0562566727 0.0357293527 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5963459 0 0 1
262144 55.5645351 0 0 128
524288 55.5906061 0 0 256
786432 55.5792484 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7708076 0.0864188684 0.0357592549 1
262144 20.3965384 0.066761552 0.0348569729 128
524288 20.3712186 0.0656294697 0.0347340701 256
786432 20.3628349 0.0656085192 0.0348325052 384
EOD
set title "Quantization SQNR over training: variant=weights_1d\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 e4m3 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 e4m3 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16]'
unset output
