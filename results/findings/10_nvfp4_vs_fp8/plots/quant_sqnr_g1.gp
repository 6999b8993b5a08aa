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
262144 31.539205 0.000231026342 7.87159764e-07 128
524288 31.5347825 0.000254676456 1.7660636e-07 256
786432 31.5362742 0.000235436455 8.07343361e-08 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 27.7657469 0.0552768606 0 1
262144 31.543722 7.64285038e-06 4.52112274e-05 128
524288 31.5412713 5.16699745e-06 1.37786598e-05 256
786432 31.5074244 5.4899348e-06 3.01408184e-06 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 9.90341571 0.658352782 0 1
262144 25.5253691 2.37308482e-05 2.82570176e-07 128
524288 25.5555918 7.80650547e-05 0 256
786432 25.5671259 9.95202044e-05 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 27.7657469 0.0552768606 0 1
262144 31.543722 7.64285038e-06 4.52112274e-05 128
524288 31.5412713 5.16699745e-06 1.37786598e-05 256
786432 31.5074244 5.4899348e-06 3.01408184e-06 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 9.90341571 0.658352782 0 1
262144 25.5253691 2.37308482e-05 2.82570176e-07 128
524288 25.5555918 7.80650547e-05 0 256
786432 25.5671259 9.95202044e-05 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 31.1170892 0.0219010348 0 1
262144 31.539205 0.000231026342 7.87159764e-07 128
524288 31.5347825 0.000254676456 1.7660636e-07 256
786432 31.5362742 0.000235436455 8.07343361e-08 384
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
