# fp4lab plot 'quant_sqnr_g6' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g6.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g6.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g6.' . fmt
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
1024 20.3971034 0.0868442477 0.0709437875 1
165888 20.4812236 0.111371737 0.0712279513 162
331776 20.5150265 0.114592431 0.0708075934 324
497664 20.4710635 0.113561267 0.0702784404 486
663552 20.4518822 0.112632888 0.0701844506 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.1371173 0.0960801543 0.00593219738 1
165888 19.0199906 0.105942176 0.00554661019 162
331776 18.9482071 0.109099858 0.00549994575 324
497664 18.9507425 0.107718331 0.00558181034 486
663552 18.9392392 0.107019495 0.00552012932 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.6197303 0.108404023 0.0706544907 1
165888 17.7035039 0.152106209 0.0697270951 162
331776 17.7482238 0.15731801 0.0696564479 324
497664 17.754451 0.155565277 0.0695615042 486
663552 17.7075198 0.15204254 0.0695466846 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.1371173 0.0960801543 0.00593219738 1
165888 19.0199906 0.105942176 0.00554661019 162
331776 18.9482071 0.109099858 0.00549994575 324
497664 18.9507425 0.107718331 0.00558181034 486
663552 18.9392392 0.107019495 0.00552012932 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.4709753 0.0694967755 0.0752350035 1
165888 17.3395757 0.0552261445 0.0768143335 162
331776 17.3228213 0.0542007478 0.0774749728 324
497664 17.294154 0.0536893058 0.0774748214 486
663552 17.3370109 0.0536792847 0.0778736389 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.6472576 0.0829307017 0.0758201663 1
165888 20.4139796 0.0637123017 0.0743816922 162
331776 20.403772 0.0629070979 0.0745297688 324
497664 20.4005217 0.062432985 0.0748280571 486
663552 20.4029345 0.0624328037 0.0741578507 648
EOD
set title "Quantization SQNR over training: variant=scale_round_down\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in scale-down]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in scale-down]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in scale-down]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in scale-down]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in scale-down]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in scale-down]'
unset output
