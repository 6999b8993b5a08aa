# fp4lab plot 'quant_sqnr_g8' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g8.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g8.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g8.' . fmt
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
165888 18.4161225 0.150205279 0.0227499614 162
331776 18.3111855 0.156425854 0.0216347076 324
497664 18.3157029 0.154314056 0.0203127635 486
663552 18.2988772 0.153335722 0.0198380456 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8653219 0.0833938844 0.0186883835 1
165888 18.7713354 0.082324477 0.0247833414 162
331776 18.7468034 0.082904311 0.0238255093 324
497664 18.6898019 0.0833557769 0.0246323682 486
663552 18.6750168 0.0825978439 0.0246769335 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2802125 0.146111413 0.0227378058 1
165888 17.8807644 0.236784919 0.0207165158 162
331776 17.8258595 0.250617027 0.0204776583 324
497664 17.8183785 0.247826879 0.0204079341 486
663552 17.8313494 0.242502833 0.0203419942 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8664323 0.0835648789 0.0186363907 1
165888 18.7098417 0.0856242511 0.0241079179 162
331776 18.6821382 0.0862609213 0.0238083936 324
497664 18.6286922 0.086103006 0.02497888 486
663552 18.6152402 0.0855373802 0.025142932 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2448522 0.132515589 0.0288317393 1
165888 17.2869132 0.291593371 0.0182392635 162
331776 17.2936446 0.318651062 0.0181361759 324
497664 17.1585636 0.33944257 0.0176593689 486
663552 17.1741469 0.336382653 0.0176191936 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.6271522 0.0909887343 0.0495844645 1
165888 18.5315066 0.112032134 0.0374301126 162
331776 18.3708188 0.124856494 0.0344028323 324
497664 18.3860282 0.128881758 0.0314620639 486
663552 18.3737319 0.128156011 0.0316091568 648
EOD
set title "Quantization SQNR over training: arm=+fp4+bf16_operands\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]'
unset output
