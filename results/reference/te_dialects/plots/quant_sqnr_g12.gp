# fp4lab plot 'quant_sqnr_g12' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g12.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g12.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g12.' . fmt
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
2048 20.532114 0.0911835566 0.0315851688 1
262144 20.620836 0.107953571 0.0311966246 128
524288 20.60399 0.108812443 0.0310343284 256
786432 20.5727191 0.107945993 0.0310119648 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0661545 0.10097217 0.00233677455 1
262144 18.9462874 0.108562274 0.00235162968 128
524288 18.9041452 0.10884732 0.00239963968 256
786432 18.8973816 0.108424919 0.0023968409 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3134979 0.112184615 0.0339060991 1
262144 17.3368297 0.149867335 0.0336787612 128
524288 17.3433907 0.150174993 0.033855307 256
786432 17.3381421 0.14798669 0.0337678516 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0661545 0.10097217 0.00233677455 1
262144 18.9462874 0.108562274 0.00235162968 128
524288 18.9041452 0.10884732 0.00239963968 256
786432 18.8973816 0.108424919 0.0023968409 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.192925 0.0723867164 0.0353876952 1
262144 16.9974414 0.0570620278 0.0354789954 128
524288 16.9841046 0.0567522202 0.0352924185 256
786432 16.9711044 0.0562555627 0.0355806097 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7772667 0.0859636579 0.0359052727 1
262144 20.4005874 0.0668348281 0.0347836611 128
524288 20.3592078 0.0656152044 0.034686356 256
786432 20.3523564 0.0655253476 0.0348675945 384
EOD
set title "Quantization SQNR over training: variant=row_scaled_x\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne row-scaled bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in]'
unset output
