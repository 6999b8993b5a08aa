# fp4lab plot 'quant_sqnr_g4' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g4.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g4.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g4.' . fmt
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
2048 20.5620164 0.119191536 0.0339080907 1
262144 20.8272436 0.15908837 0.0339205 128
524288 20.8507753 0.15788846 0.0328266236 256
786432 20.8092107 0.15153275 0.0338905473 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.060193 0.100414134 0.0023539979 1
262144 18.9794817 0.10721541 0.00236153307 128
524288 18.9298267 0.108211565 0.00245496962 256
786432 18.9320036 0.106457369 0.00240825136 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.349032 0.162140811 0.0335152708 1
262144 17.4123849 0.214701452 0.0333325657 128
524288 17.45024 0.215362031 0.0333755636 256
786432 17.4525655 0.209988017 0.0333810265 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.060193 0.100414134 0.0023539979 1
262144 18.9794817 0.10721541 0.00236153307 128
524288 18.9298267 0.108211565 0.00245496962 256
786432 18.9320036 0.106457369 0.00240825136 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1529431 0.0631118113 0.0343856341 1
262144 17.0377268 0.0584896935 0.0352323792 128
524288 16.9893652 0.0571618494 0.0352779199 256
786432 16.9648979 0.0560265533 0.0353838837 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.390397 0.0661748719 0.0344220383 1
262144 20.3407918 0.064910158 0.0349467002 128
524288 20.3196186 0.0636294324 0.0348923767 256
786432 20.2900097 0.0633201362 0.0353000548 384
EOD
set title "Quantization SQNR over training: variant=nvfp4_mlp\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in]'
unset output
