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
2048 55.6087545 0 0 1
262144 55.5554148 0 0 128
524288 55.5752939 0 0 256
786432 55.6032124 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 31.540636 3.46854882e-05 3.12845551e-07 1
262144 31.581194 0.000207961552 7.41746712e-07 128
524288 31.5248986 0.00022113134 2.3715711e-07 256
786432 31.5040051 0.000195129839 4.0367168e-08 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6724084 0 0 128
524288 55.5773513 0 0 256
786432 55.6378117 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 31.5549304 6.99697572e-06 8.50401658e-06 1
262144 31.5513651 8.28872504e-06 5.05935165e-06 128
524288 31.5398832 9.14989133e-06 1.04416406e-05 256
786432 31.5319655 3.12172764e-06 8.71930818e-06 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.12644 0 0 1
262144 57.433953 0 0 128
524288 57.3159281 0 0 256
786432 57.3753395 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 25.5611227 6.05507502e-08 4.08717575e-07 1
262144 25.5887513 6.46883849e-06 5.14681392e-07 128
524288 25.595877 3.19203371e-05 2.92661966e-07 256
786432 25.5837675 2.47047062e-05 3.53212719e-07 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6724084 0 0 128
524288 55.5773513 0 0 256
786432 55.6378117 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 31.5549304 6.99697572e-06 8.50401658e-06 1
262144 31.5513651 8.28872504e-06 5.05935165e-06 128
524288 31.5398832 9.14989133e-06 1.04416406e-05 256
786432 31.5319655 3.12172764e-06 8.71930818e-06 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.12644 0 0 1
262144 57.433953 0 0 128
524288 57.3159281 0 0 256
786432 57.3753395 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 25.5611227 6.05507502e-08 4.08717575e-07 1
262144 25.5887513 6.46883849e-06 5.14681392e-07 128
524288 25.595877 3.19203371e-05 2.92661966e-07 256
786432 25.5837675 2.47047062e-05 3.53212719e-07 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6087545 0 0 1
262144 55.5554148 0 0 128
524288 55.5752939 0 0 256
786432 55.6032124 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 31.540636 3.46854882e-05 3.12845551e-07 1
262144 31.581194 0.000207961552 7.41746712e-07 128
524288 31.5248986 0.00022113134 2.3715711e-07 256
786432 31.5040051 0.000195129839 4.0367168e-08 384
EOD
set title "Quantization SQNR over training: variant=fp8\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp8_e4m3/tensor fp32 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp8_e4m3/tensor fp32 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp8_e5m2/tensor fp32 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp8_e4m3/tensor fp32 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp8_e5m2/tensor fp32 1d rne]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp8_e4m3/tensor fp32 1d rne]'
unset output
