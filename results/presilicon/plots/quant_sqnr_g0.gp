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
1024 20.5013301 0.0902649559 0.0340877712 1
165888 20.6692675 0.112383404 0.0346729791 162
331776 20.7709827 0.115285692 0.0340265243 324
497664 20.7346447 0.114246308 0.0336753605 486
663552 20.6960001 0.114052636 0.0339102369 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.064173 0.100736103 0.00236357835 1
165888 18.9236245 0.110489134 0.00243333282 162
331776 18.8675229 0.113123011 0.00235114526 324
497664 18.8405652 0.113008207 0.00239441886 486
663552 18.8362746 0.112061193 0.00238150138 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.3085026 0.112217207 0.0338005186 1
165888 17.3430301 0.152486089 0.0336629473 162
331776 17.3493037 0.156558173 0.0336492933 324
497664 17.3917339 0.156047518 0.0337581636 486
663552 17.3750547 0.15339423 0.0337284481 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.064173 0.100736103 0.00236357835 1
165888 18.9236245 0.110489134 0.00243333282 162
331776 18.8675229 0.113123011 0.00235114526 324
497664 18.8405652 0.113008207 0.00239441886 486
663552 18.8362746 0.112061193 0.00238150138 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.1711586 0.0725706042 0.0352530706 1
165888 16.9945677 0.057808392 0.0354269422 162
331776 16.9834158 0.0566384754 0.0355252765 324
497664 16.9548492 0.0561910657 0.0359711419 486
663552 16.9472716 0.0558685425 0.035837234 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.7639461 0.086161054 0.0355926092 1
165888 20.4047025 0.0667207051 0.0349508163 162
331776 20.4013425 0.0657603547 0.034944065 324
497664 20.3864153 0.06492857 0.0352097467 486
663552 20.3770765 0.0652009423 0.0350014219 648
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
