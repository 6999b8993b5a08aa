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
1024 18.4681273 0.0967110524 0.0438220767 1
165888 18.2934647 0.122973003 0.0450052686 162
331776 18.3275594 0.125646258 0.0414976242 324
497664 18.2974426 0.124380808 0.0407639609 486
663552 18.3099252 0.123880841 0.0406104345 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.5865022 0.104679975 0.00863389108 1
165888 18.416596 0.122468494 0.00494142562 162
331776 18.2914131 0.127632262 0.0047972341 324
497664 18.2950168 0.127784526 0.00421901482 486
663552 18.3128223 0.127158352 0.00399893301 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 15.8102558 0.118331606 0.039364618 1
165888 15.5876113 0.163203936 0.0371774643 162
331776 15.5845391 0.169439331 0.0371156117 324
497664 15.5444229 0.168813191 0.0368941626 486
663552 15.5431506 0.166233108 0.0369742863 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.5865022 0.104679975 0.00863389108 1
165888 18.416596 0.122468494 0.00494142562 162
331776 18.2914131 0.127632262 0.0047972341 324
497664 18.2950168 0.127784526 0.00421901482 486
663552 18.3128223 0.127158352 0.00399893301 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 16.1493315 0.0778228822 0.044250897 1
165888 16.2660136 0.0623214055 0.0481210892 162
331776 16.2863449 0.0611809169 0.0489410069 324
497664 16.2872561 0.0603500097 0.0495351157 486
663552 16.2885378 0.0603492374 0.0494911254 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.6490456 0.092183901 0.0436336124 1
165888 18.674853 0.0731946557 0.0437551074 162
331776 18.6896124 0.0716928754 0.0443053321 324
497664 18.6808555 0.0713398344 0.0448236766 486
663552 18.6880678 0.0715171877 0.0449206187 648
EOD
set title "Quantization SQNR over training: arm=+fp4+block16+weights_2d+rht+sr+bf16_operands\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 ue8m0-floor 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 ue8m0-floor 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 ue8m0-floor 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 ue8m0-floor 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 ue8m0-floor 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 ue8m0-floor 1d rne rht16 bf16-in]'
unset output
