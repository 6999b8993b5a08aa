# fp4lab plot 'quant_sqnr_g0' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g0.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g0.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g0.' . fmt
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
1024 55.6291653 0 0 1
165888 55.6277943 0 0 162
331776 55.6260011 0 0 324
497664 55.5984953 0 0 486
663552 55.626027 0 0 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5918747 0 0 1
165888 55.6025034 0 0 162
331776 55.5881665 0 0 324
497664 55.6348265 0 0 486
663552 55.6243001 0 0 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.9571253 0 0 1
165888 55.6525594 0 0 162
331776 55.6914738 0 0 324
497664 55.6829038 0 0 486
663552 55.7007116 0 0 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5918747 0 0 1
165888 55.6025034 0 0 162
331776 55.5881665 0 0 324
497664 55.6348265 0 0 486
663552 55.6243001 0 0 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.9571253 0 0 1
165888 55.6525594 0 0 162
331776 55.6914738 0 0 324
497664 55.6829038 0 0 486
663552 55.7007116 0 0 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6291653 0 0 1
165888 55.6277943 0 0 162
331776 55.6260011 0 0 324
497664 55.5984953 0 0 486
663552 55.626027 0 0 648
EOD
set title "Quantization SQNR over training: arm=base\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [bf16 rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [bf16 rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [bf16 rne]'
unset output
