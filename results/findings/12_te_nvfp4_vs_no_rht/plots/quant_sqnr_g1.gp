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
2048 20.4959731 0.0902491372 0.0339591567 1
262144 20.5766787 0.10952725 0.0342619206 128
524288 20.5952468 0.108029264 0.0337858602 256
786432 20.5468236 0.106521955 0.0340482268 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0671601 0.100882825 0.00237606526 1
262144 18.9479937 0.109696215 0.00247617583 128
524288 18.8939531 0.110100533 0.00233354519 256
786432 18.8885167 0.108820409 0.00238629161 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3093353 0.112582222 0.0339042877 1
262144 17.3173534 0.150620203 0.033717221 128
524288 17.3522283 0.152091399 0.0337200669 256
786432 17.3646283 0.148954528 0.0337164086 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0671601 0.100882825 0.00237606526 1
262144 18.9479937 0.109696215 0.00247617583 128
524288 18.8939531 0.110100533 0.00233354519 256
786432 18.8885167 0.108820409 0.00238629161 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1859029 0.0721779828 0.0352696516 1
262144 17.0007345 0.0573987153 0.0354793739 128
524288 16.9924198 0.0567636538 0.035683425 256
786432 16.9609917 0.0563494716 0.0356986384 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7668946 0.086017109 0.0356999652 1
262144 20.3807324 0.0669594525 0.0346057129 128
524288 20.3623113 0.0656354945 0.0346836868 256
786432 20.360012 0.0655715677 0.0346969475 384
EOD
set title "Quantization SQNR over training: variant=te_nvfp4\nmean over tensors and seeds, per GEMM operand"
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
