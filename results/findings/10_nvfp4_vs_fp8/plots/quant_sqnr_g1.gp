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
2048 31.1170892 0.0219010348 0 1
262144 31.5237772 0.000239801155 1.791293e-06 128
524288 31.5072958 0.000262840715 4.0367168e-08 256
786432 31.5103525 0.000250165425 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 27.7657469 0.0552768606 0 1
262144 31.5316489 8.82695398e-06 4.13359793e-05 128
524288 31.5259687 2.15291561e-06 1.49627633e-05 256
786432 31.5121661 1.03339949e-05 2.15291561e-06 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 9.90341571 0.658352782 0 1
262144 25.4964168 2.66776514e-05 5.80278015e-07 128
524288 25.4124019 7.17173189e-05 4.49084736e-07 256
786432 25.5675303 6.93659298e-05 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 27.7657469 0.0552768606 0 1
262144 31.5316489 8.82695398e-06 4.13359793e-05 128
524288 31.5259687 2.15291561e-06 1.49627633e-05 256
786432 31.5121661 1.03339949e-05 2.15291561e-06 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 9.90341571 0.658352782 0 1
262144 25.4964168 2.66776514e-05 5.80278015e-07 128
524288 25.4124019 7.17173189e-05 4.49084736e-07 256
786432 25.5675303 6.93659298e-05 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 31.1170892 0.0219010348 0 1
262144 31.5237772 0.000239801155 1.791293e-06 128
524288 31.5072958 0.000262840715 4.0367168e-08 256
786432 31.5103525 0.000250165425 0 384
EOD
set title "Quantization SQNR over training: variant=fp8\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp8_e4m3/tensor fp32 1d rne delayed bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp8_e4m3/tensor fp32 1d rne delayed bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp8_e5m2/tensor fp32 1d rne delayed bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp8_e4m3/tensor fp32 1d rne delayed bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp8_e5m2/tensor fp32 1d rne delayed bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp8_e4m3/tensor fp32 1d rne delayed bf16-in]'
unset output
