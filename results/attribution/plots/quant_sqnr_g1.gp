# fp4lab plot 'quant_sqnr_g1' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g1.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g1.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g1.' . fmt
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
1024 55.5818014 0 0 1
165888 55.59762 0 0 162
331776 55.6219368 0 0 324
497664 55.5796423 0 0 486
663552 55.5611391 0 0 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.578384 0.113630431 0.0219403827 1
165888 18.3838678 0.149574461 0.0227489169 162
331776 18.3293764 0.152411718 0.0216206596 324
497664 18.3302501 0.151785563 0.0211737044 486
663552 18.3346545 0.149324417 0.0206546178 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.5937719 0 0 162
331776 55.523941 0 0 324
497664 55.8019295 0 0 486
663552 55.8175097 0 0 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8588239 0.0829533975 0.019175696 1
165888 18.755085 0.0824773878 0.0256371876 162
331776 18.7019169 0.0826198029 0.0252838942 324
497664 18.6949875 0.0821612324 0.0255131797 486
663552 18.6658182 0.0818875428 0.0261498506 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2515879 0 0 1
165888 57.4422569 0 0 162
331776 57.4586725 0 0 324
497664 57.2676468 0 0 486
663552 57.252058 0 0 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2681309 0.145388739 0.0232390904 1
165888 17.8287309 0.241074169 0.0209742501 162
331776 17.804105 0.251536399 0.0206642908 324
497664 17.7706558 0.247051997 0.0207361039 486
663552 17.817799 0.240732207 0.0206998189 648
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.5937719 0 0 162
331776 55.523941 0 0 324
497664 55.8019295 0 0 486
663552 55.8175097 0 0 648
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8592997 0.0831038867 0.0191543822 1
165888 18.6905625 0.0856647794 0.0249456173 162
331776 18.6411513 0.085980128 0.0246853299 324
497664 18.6242967 0.0855073474 0.0257703993 486
663552 18.6141806 0.0851949056 0.026104155 648
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2515879 0 0 1
165888 57.4422569 0 0 162
331776 57.4586725 0 0 324
497664 57.2676468 0 0 486
663552 57.252058 0 0 648
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2362506 0.131783561 0.0295052151 1
165888 17.2522361 0.28213675 0.0188578045 162
331776 17.2433002 0.314136141 0.0184624535 324
497664 17.1534605 0.329292328 0.0180174207 486
663552 17.1652805 0.329849439 0.0180655585 648
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5818014 0 0 1
165888 55.59762 0 0 162
331776 55.6219368 0 0 324
497664 55.5796423 0 0 486
663552 55.5611391 0 0 648
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.608832 0.0905759294 0.0513041512 1
165888 18.4972858 0.111150697 0.0378027567 162
331776 18.3779719 0.12057209 0.0343379065 324
497664 18.3734576 0.126125396 0.032992908 486
663552 18.3948042 0.124951272 0.032489035 648
EOD
set title "Quantization SQNR over training: arm=+fp4\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/32 ue8m0-floor 1d rne]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/32 ue8m0-floor 1d rne]'
unset output
