# fp4lab plot 'quant_sqnr_g11' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g11.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g11.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g11.' . fmt
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
2048 31.1274958 0.0217979269 0 1
262144 31.5024616 0.00024607825 3.02753751e-08 128
524288 31.5195216 0.000237207564 0 256
786432 31.5188095 0.00023053689 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 27.7750397 0.0553673907 0 1
262144 31.5269214 9.25753713e-06 4.19818539e-05 128
524288 31.5242891 3.65995653e-06 1.4639826e-05 256
786432 31.5185643 1.05492865e-05 3.01408184e-06 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 9.91958063 0.658188675 0 1
262144 25.4383963 3.58561362e-05 8.88077653e-07 128
524288 25.5498819 7.70003719e-05 0 256
786432 25.5653065 8.19958072e-05 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 27.7750397 0.0553673907 0 1
262144 31.5269214 9.25753713e-06 4.19818539e-05 128
524288 31.5242891 3.65995653e-06 1.4639826e-05 256
786432 31.5185643 1.05492865e-05 3.01408184e-06 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 9.91958063 0.658188675 0 1
262144 25.4383963 3.58561362e-05 8.88077653e-07 128
524288 25.5498819 7.70003719e-05 0 256
786432 25.5653065 8.19958072e-05 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 31.1274958 0.0217979269 0 1
262144 31.5024616 0.00024607825 3.02753751e-08 128
524288 31.5195216 0.000237207564 0 256
786432 31.5188095 0.00023053689 0 384
EOD
set title "Quantization SQNR over training: variant=fp8_delayed\nmean over tensors and seeds, per GEMM operand"
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
