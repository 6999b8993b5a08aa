# fp4lab plot 'quant_sqnr_g9' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g9.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g9.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g9.' . fmt
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
2048 20.4888898 0.0908611441 0.034008642 1
262144 20.5725467 0.108487952 0.0345947929 128
524288 20.5837225 0.107327699 0.0344940368 256
786432 20.5532718 0.106457745 0.0341998915 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4347705 0.0680738985 0.0342759227 1
262144 20.4000963 0.066292576 0.0342106895 128
524288 20.3744911 0.0666445778 0.0343939025 256
786432 20.3511062 0.0666893586 0.0342912085 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.2984977 0.112369658 0.0338215298 1
262144 17.3663837 0.150823855 0.0335848471 128
524288 17.3538521 0.151275745 0.0337596873 256
786432 17.3603549 0.148805477 0.0337645717 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.6661682 0.00204117926 0.0313791748 1
262144 20.6093277 0.00529143591 0.0314792855 128
524288 20.5866641 0.00525806568 0.0318816654 256
786432 20.5797506 0.00478571604 0.0307866926 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1878681 0.0724458847 0.0351909858 1
262144 16.9767987 0.0571235779 0.0353964852 128
524288 16.9840791 0.0568257284 0.0355450261 256
786432 16.9790298 0.0563245296 0.0356895003 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7743923 0.0861119675 0.0357669846 1
262144 20.3969386 0.0669379159 0.0346232925 128
524288 20.3652407 0.0657787826 0.0349104746 256
786432 20.3681569 0.0657578726 0.0348667164 384
EOD
set title "Quantization SQNR over training: variant=te_nvfp4_1d_weight\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 1d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 1d rne bf16-in from-fprop]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in]'
unset output
