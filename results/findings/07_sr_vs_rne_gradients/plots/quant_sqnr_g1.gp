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
2048 55.5880178 0 0 1
262144 55.5974172 0 0 128
524288 55.5663687 0 0 256
786432 55.5619081 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4991961 0.0902947724 0.0346542287 1
262144 20.6146853 0.107333179 0.0346500104 128
524288 20.6311784 0.108538759 0.0345814719 256
786432 20.5961816 0.106990138 0.034436665 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6686567 0 0 128
524288 55.6311925 0 0 256
786432 55.5515683 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0666944 0.100871307 0.00237240531 1
262144 18.9544354 0.108510174 0.00235324437 128
524288 18.9088702 0.109726248 0.00236799182 256
786432 18.890318 0.108667767 0.00240652902 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0917199 0 0 1
262144 57.4219901 0 0 128
524288 57.3457273 0 0 256
786432 57.3646018 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3118287 0.112622332 0.0342013444 1
262144 17.3403012 0.149900764 0.0340178909 128
524288 17.3557009 0.151738757 0.0340075419 256
786432 17.3378726 0.148399842 0.0340357634 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6686567 0 0 128
524288 55.6311925 0 0 256
786432 55.5515683 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0666944 0.100871307 0.00237240531 1
262144 18.9544354 0.108510174 0.00235324437 128
524288 18.9088702 0.109726248 0.00236799182 256
786432 18.890318 0.108667767 0.00240652902 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0917199 0 0 1
262144 57.4219901 0 0 128
524288 57.3457273 0 0 256
786432 57.3646018 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.178974 0.0723312773 0.0351568302 1
262144 16.9973139 0.0573059867 0.0355486239 128
524288 16.9818482 0.0568351141 0.0356615258 256
786432 16.9771076 0.0562323212 0.035754345 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5880178 0 0 1
262144 55.5974172 0 0 128
524288 55.5663687 0 0 256
786432 55.5619081 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7696483 0.0863163055 0.0359403267 1
262144 20.3889004 0.066665342 0.0348344328 128
524288 20.366763 0.0656407022 0.0347468413 256
786432 20.3542727 0.0653577377 0.0347614086 384
EOD
set title "Quantization SQNR over training: variant=sr_gradients\nmean over tensors and seeds, per GEMM operand"
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
