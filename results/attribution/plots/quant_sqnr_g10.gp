# fp4lab plot 'quant_sqnr_g10' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g10.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g10.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g10.' . fmt
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
1024 18.5932431 0.114135651 0.0211978792 1
165888 18.3596815 0.149293748 0.0221252895 162
331776 18.3686196 0.152998773 0.0196422545 324
497664 18.3532795 0.152276675 0.0199473093 486
663552 18.3350512 0.151220155 0.0201351833 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8653219 0.0833938844 0.0186883835 1
165888 18.7680586 0.08299764 0.0253010099 162
331776 18.757873 0.0829165826 0.0238973627 324
497664 18.7180224 0.0824068261 0.0245626137 486
663552 18.6877543 0.0822284031 0.0251534275 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 15.6001219 0.140561179 0.0226535645 1
165888 15.1348422 0.226657867 0.0205594774 162
331776 15.134377 0.232245249 0.0203025455 324
497664 15.1096744 0.230379817 0.0202719521 486
663552 15.1188479 0.225809521 0.0203475044 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8664323 0.0835648789 0.0186363907 1
165888 18.7173818 0.0867390306 0.0237924081 162
331776 18.6769656 0.0864944057 0.0239441887 324
497664 18.6583737 0.0857085374 0.0249787184 486
663552 18.6340378 0.0854195086 0.0254224343 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 15.9658719 0.0976618058 0.0253082458 1
165888 16.0798255 0.086273572 0.0278672415 162
331776 16.0843446 0.0865725564 0.0280805014 324
497664 16.0919094 0.0868883586 0.0285975895 486
663552 16.0792935 0.08682858 0.0285803326 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.7779971 0.105425729 0.0257035967 1
165888 18.77651 0.0856301745 0.0253737465 162
331776 18.7658488 0.0861093287 0.0263137514 324
497664 18.7960105 0.0858387569 0.0259936953 486
663552 18.7639547 0.0861117954 0.0258420913 648
EOD
set title "Quantization SQNR over training: arm=+fp4+rht+sr+bf16_operands\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/32 ue8m0-floor 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/32 ue8m0-floor 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/32 ue8m0-floor 1d rne rht16 bf16-in]'
unset output
