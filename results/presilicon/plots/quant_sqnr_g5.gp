# fp4lab plot 'quant_sqnr_g5' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g5.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g5.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g5.' . fmt
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
1024 19.9898654 0.0940533145 5.89158809e-05 1
165888 20.0487366 0.116207486 2.5083148e-05 162
331776 20.0843065 0.120026695 0.000208158341 324
497664 20.0536558 0.119994497 5.47832912e-05 486
663552 20.0627339 0.118702934 0.000119648283 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.9439179 0.105227839 2.03450523e-05 1
165888 18.7718359 0.115680835 2.42203004e-05 162
331776 18.7072259 0.119781494 2.64808617e-05 324
497664 18.7023132 0.118184408 2.0990927e-05 486
663552 18.6948239 0.117145034 1.9053303e-05 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 16.439579 0.116419777 5.58580662e-06 1
165888 16.3548106 0.161215677 8.74050087e-05 162
331776 16.3350914 0.165012194 0.000100922962 324
497664 16.3419382 0.16324022 8.89944643e-05 486
663552 16.3194232 0.160595546 6.44562741e-05 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.9439179 0.105227839 2.03450523e-05 1
165888 18.7718359 0.115680835 2.42203004e-05 162
331776 18.7072259 0.119781494 2.64808617e-05 324
497664 18.7023132 0.118184408 2.0990927e-05 486
663552 18.6948239 0.117145034 1.9053303e-05 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 16.4931639 0.0756120531 5.16952025e-05 1
165888 16.3121728 0.0599437894 9.69417505e-05 162
331776 16.3500527 0.0593524962 0.00017576369 324
497664 16.3360747 0.058595718 4.38084681e-05 486
663552 16.3159935 0.0587005314 0.00010087755 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.1331333 0.0894419809 9.12953957e-05 1
165888 19.9032811 0.0694856796 0.000235103429 162
331776 19.8585175 0.0687034245 0.00013153137 324
497664 19.8388705 0.0679059861 9.47165109e-05 486
663552 19.8464736 0.0683230598 0.000102088564 648
EOD
set title "Quantization SQNR over training: variant=scale_round_up\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in scale-up]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in scale-up]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in scale-up]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in scale-up]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in scale-up]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in scale-up]'
unset output
