# fp4lab plot 'quant_sqnr_g3' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g3.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g3.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g3.' . fmt
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
1024 21.0733905 0.0991887595 0.0243063579 1
165888 21.2456016 0.121041494 0.0241610208 162
331776 21.2774165 0.124876265 0.024449076 324
497664 21.2458236 0.123699219 0.0240448847 486
663552 21.2393908 0.122487386 0.0240958834 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0770195 0.10136018 0.00229818355 1
165888 18.926423 0.111502189 0.00235130674 162
331776 18.8749092 0.113548158 0.00235437463 324
497664 18.8633157 0.112567074 0.00234807737 486
663552 18.8558891 0.111078817 0.00230512669 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.5321877 0.121530805 0.0246141676 1
165888 17.568995 0.164195938 0.0251403234 162
331776 17.5304882 0.168823711 0.0252013433 324
497664 17.5766402 0.165762629 0.0251365086 486
663552 17.5360853 0.16329623 0.0251310893 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0770195 0.10136018 0.00229818355 1
165888 18.926423 0.111502189 0.00235130674 162
331776 18.8749092 0.113548158 0.00235437463 324
497664 18.8633157 0.112567074 0.00234807737 486
663552 18.8558891 0.111078817 0.00230512669 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.5483828 0.0820900751 0.0237287188 1
165888 17.5607809 0.0668435781 0.0220628163 162
331776 17.547907 0.0658155167 0.0218571709 324
497664 17.5643022 0.064891058 0.021884888 486
663552 17.5672282 0.0652765696 0.0218965742 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 21.4179328 0.095704366 0.0244266873 1
165888 21.1361136 0.0760269462 0.0232421481 162
331776 21.1520319 0.0744337503 0.0230623578 324
497664 21.1397148 0.0741158142 0.0232145065 486
663552 21.1430753 0.0745172044 0.0231519124 648
EOD
set title "Quantization SQNR over training: variant=4over6_rht_sr_q448\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne 4over6-mae bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne 4over6-mae bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr 4over6-mae bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne 4over6-mae bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 4over6-mae bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 4over6-mae bf16-in]'
unset output
