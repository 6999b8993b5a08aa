# fp4lab plot 'quant_sqnr_g4' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g4.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g4.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g4.' . fmt
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
1024 21.1162286 0.0996217274 0.023874192 1
165888 21.2390451 0.120888831 0.0233173976 162
331776 21.3083574 0.123664402 0.0236762062 324
497664 21.2413201 0.124432609 0.0239243279 486
663552 21.2059375 0.122569069 0.0244369659 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0678478 0.100772272 0.00234856176 1
165888 18.9252676 0.109849718 0.00229802209 162
331776 18.8553859 0.114454158 0.00231852859 324
497664 18.8372744 0.11418709 0.00233532134 486
663552 18.8352571 0.112719985 0.00236826094 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.5453219 0.121710793 0.0246532835 1
165888 17.5279981 0.162419198 0.0250324673 162
331776 17.5670756 0.170082895 0.0247948057 324
497664 17.6078642 0.169071849 0.0250546895 486
663552 17.5449554 0.166326689 0.0249677537 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0678478 0.100772272 0.00234856176 1
165888 18.9252676 0.109849718 0.00229802209 162
331776 18.8553859 0.114454158 0.00231852859 324
497664 18.8372744 0.11418709 0.00233532134 486
663552 18.8352571 0.112719985 0.00236826094 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 17.5653683 0.0820258458 0.0234950839 1
165888 17.572906 0.0666871451 0.0220207486 162
331776 17.5852938 0.0662618672 0.0217579887 324
497664 17.5927111 0.0656203466 0.0218337074 486
663552 17.5661275 0.0655595537 0.0218648154 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 21.4311772 0.0955664011 0.0243990308 1
165888 21.1375358 0.0762864667 0.0230250131 162
331776 21.1548639 0.0750591491 0.0230415738 324
497664 21.1395569 0.0744241385 0.023075331 486
663552 21.1357173 0.0748178389 0.0228666274 648
EOD
set title "Quantization SQNR over training: variant=4over6_rht_sr_q256\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne 4over6-mae q256 bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne 4over6-mae q256 bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr 4over6-mae q256 bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne 4over6-mae q256 bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 4over6-mae q256 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 4over6-mae q256 bf16-in]'
unset output
