# fp4lab plot 'quant_sqnr_g9' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g9.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g9.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g9.' . fmt
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
165888 18.4417639 0.150428045 0.0222136179 162
331776 18.3665142 0.154262558 0.0206958225 324
497664 18.3500836 0.153686387 0.0195470387 486
663552 18.3593399 0.152696186 0.0189439531 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8653219 0.0833938844 0.0186883835 1
165888 18.7613382 0.0826416019 0.025127754 162
331776 18.7385728 0.0831211639 0.0246268782 324
497664 18.7012386 0.0830171779 0.0247883468 486
663552 18.6831359 0.0822896003 0.0250290966 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 15.6001219 0.140561179 0.0226535645 1
165888 15.1786481 0.223709001 0.0205778243 162
331776 15.1169172 0.231375694 0.0204461416 324
497664 15.1624876 0.228857313 0.0204178038 486
663552 15.144624 0.226267209 0.0203592967 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8664323 0.0835648789 0.0186363907 1
165888 18.7109357 0.086002572 0.0240567322 162
331776 18.6797613 0.0865312203 0.0239863321 324
497664 18.640421 0.0860933173 0.0249746817 486
663552 18.6349647 0.0853513685 0.0251791011 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 15.5702778 0.127705211 0.0286073836 1
165888 14.6386676 0.270558477 0.018485039 162
331776 14.5865047 0.291123844 0.0181082923 324
497664 14.5381415 0.307884988 0.0177151513 486
663552 14.5353698 0.307520836 0.0177348 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.6271522 0.0909887343 0.0495844645 1
165888 18.542316 0.111978137 0.0379892987 162
331776 18.449351 0.12374215 0.0330681421 324
497664 18.4194331 0.128574387 0.0310705125 486
663552 18.4183455 0.128267136 0.0308919634 648
EOD
set title "Quantization SQNR over training: arm=+fp4+sr+bf16_operands\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/32 ue8m0-floor 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/32 ue8m0-floor 1d sr bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/32 ue8m0-floor 1d rne bf16-in]'
unset output
