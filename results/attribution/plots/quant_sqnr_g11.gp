# fp4lab plot 'quant_sqnr_g11' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g11.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g11.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g11.' . fmt
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
1024 18.585026 0.11406956 0.0215052045 1
165888 18.4374648 0.150581936 0.0221692647 162
331776 18.3725474 0.153935614 0.0206080996 324
497664 18.3395916 0.155052413 0.0203258726 486
663552 18.3476957 0.153319843 0.0196588455 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.1007204 0.133624041 0.00254813706 1
165888 18.1327331 0.139639718 0.00145999969 162
331776 17.9316336 0.147540058 0.00133453854 324
497664 18.02225 0.144446479 0.000929898061 486
663552 18.0674569 0.141126845 0.000987057968 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 15.5846701 0.13998236 0.0226478123 1
165888 15.1275462 0.220733809 0.0204908886 162
331776 15.1083725 0.231870667 0.0202877407 324
497664 15.0822815 0.230442683 0.0201876353 486
663552 15.1186761 0.226288795 0.0202290066 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.1007204 0.133624041 0.00254813706 1
165888 18.1327331 0.139639718 0.00145999969 162
331776 17.9316336 0.147540058 0.00133453854 324
497664 18.02225 0.144446479 0.000929898061 486
663552 18.0674569 0.141126845 0.000987057968 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 15.9832698 0.0976646516 0.0253477248 1
165888 16.0793444 0.0865664107 0.0279423094 162
331776 16.0841246 0.0872214184 0.0280373589 324
497664 16.0845189 0.0861974594 0.0287594871 486
663552 16.0833704 0.0872339824 0.0284554769 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.77118 0.105356792 0.025737596 1
165888 18.7879478 0.0854225463 0.0257400786 162
331776 18.7638417 0.0855492339 0.0263111176 324
497664 18.7766896 0.085354366 0.0258183404 486
663552 18.7845385 0.0861317468 0.0257831906 648
EOD
set title "Quantization SQNR over training: arm=+fp4+weights_2d+rht+sr+bf16_operands\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/32 ue8m0-floor 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/32 ue8m0-floor 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/32 ue8m0-floor 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/32 ue8m0-floor 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/32 ue8m0-floor 1d rne rht16 bf16-in]'
unset output
