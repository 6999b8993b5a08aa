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
1024 55.5944023 0 0 1
165888 55.6115608 0 0 162
331776 55.5744686 0 0 324
497664 55.6110439 0 0 486
663552 55.5889301 0 0 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.5062207 0.0900355449 0.0349541769 1
165888 20.64702 0.111934677 0.0340816712 162
331776 20.7304233 0.116197223 0.0338788257 324
497664 20.6964033 0.115697543 0.033849247 486
663552 20.6669953 0.113838014 0.0346618683 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.6183987 0 0 162
331776 55.5455008 0 0 324
497664 55.8837099 0 0 486
663552 55.8162775 0 0 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.4365215 0.0678709323 0.034546383 1
165888 20.3867687 0.0667609964 0.0348722266 162
331776 20.3719952 0.0672060045 0.034666677 324
497664 20.358879 0.0669476543 0.034583359 486
663552 20.3410519 0.0669294083 0.0346174288 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2940922 0 0 1
165888 57.4572802 0 0 162
331776 57.440958 0 0 324
497664 57.3633423 0 0 486
663552 57.3598862 0 0 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.5525621 0.115645439 0.0341786884 1
165888 20.7187717 0.162810613 0.0339607967 162
331776 20.7613541 0.169254909 0.0339909812 324
497664 20.7517315 0.167281847 0.0339145206 486
663552 20.7169359 0.16390693 0.0338641726 648
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.6183987 0 0 162
331776 55.5455008 0 0 324
497664 55.8837099 0 0 486
663552 55.8162775 0 0 648
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.4372617 0.0679280922 0.0345907866 1
165888 20.4447675 0.0691709168 0.0346219501 162
331776 20.4440643 0.0699475804 0.034342448 324
497664 20.4385496 0.0692839448 0.0346371282 486
663552 20.4453179 0.0691392686 0.0343529435 648
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2940922 0 0 1
165888 57.4572802 0 0 162
331776 57.440958 0 0 324
497664 57.3633423 0 0 486
663552 57.3598862 0 0 648
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.4762057 0.102025078 0.0358368858 1
165888 21.0306743 0.226098741 0.0334839443 162
331776 21.0827684 0.24554787 0.0334659001 324
497664 21.0715369 0.25477977 0.0333250742 486
663552 21.033138 0.255654335 0.0333324464 648
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5944023 0 0 1
165888 55.6115608 0 0 162
331776 55.5744686 0 0 324
497664 55.6110439 0 0 486
663552 55.5889301 0 0 648
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.7037372 0.073719479 0.0455139554 1
165888 20.6658412 0.0917136023 0.0391222185 162
331776 20.6934378 0.0986281802 0.038475869 324
497664 20.697157 0.100864622 0.0377801714 486
663552 20.7044251 0.100150623 0.0388284563 648
EOD
set title "Quantization SQNR over training: arm=+fp4+e4m3_scales+block16\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 e4m3 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 e4m3 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d rne]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne]'
unset output
