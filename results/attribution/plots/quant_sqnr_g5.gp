# fp4lab plot 'quant_sqnr_g5' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g5.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g5.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g5.' . fmt
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
1024 55.5873871 0 0 1
165888 55.549365 0 0 162
331776 55.5925598 0 0 324
497664 55.612258 0 0 486
663552 55.5925226 0 0 648
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.502659 0.0902566306 0.0349743252 1
165888 20.6388063 0.111647106 0.0349017857 162
331776 20.7332339 0.116084992 0.034006346 324
497664 20.7391406 0.116430238 0.0340856219 486
663552 20.7008415 0.115431362 0.0339717866 648
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.6028271 0 0 162
331776 55.5807705 0 0 324
497664 55.6326418 0 0 486
663552 55.8417854 0 0 648
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0634915 0.100732874 0.00235728107 1
165888 18.9239638 0.110661582 0.00235566639 162
331776 18.8555608 0.114167551 0.00234936911 324
497664 18.8483413 0.112913586 0.00235195261 486
663552 18.8447211 0.112080084 0.00247757524 648
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2680216 0 0 1
165888 57.4410315 0 0 162
331776 57.3883648 0 0 324
497664 57.3447914 0 0 486
663552 57.2824612 0 0 648
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.5570636 0.115709472 0.0340354556 1
165888 20.6905759 0.158376178 0.0339909207 162
331776 20.7459104 0.166178658 0.0339904666 324
497664 20.7579111 0.165098523 0.0339294917 486
663552 20.739524 0.162215869 0.0340156555 648
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.6028271 0 0 162
331776 55.5807705 0 0 324
497664 55.6326418 0 0 486
663552 55.8417854 0 0 648
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 19.0634915 0.100732874 0.00235728107 1
165888 18.9239638 0.110661582 0.00235566639 162
331776 18.8555608 0.114167551 0.00234936911 324
497664 18.8483413 0.112913586 0.00235195261 486
663552 18.8447211 0.112080084 0.00247757524 648
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2680216 0 0 1
165888 57.4410315 0 0 162
331776 57.3883648 0 0 324
497664 57.3447914 0 0 486
663552 57.2824612 0 0 648
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.3638762 0.0734369037 0.0352877358 1
165888 20.0758525 0.0576230455 0.0355380829 162
331776 20.0595217 0.0569695217 0.0356574587 324
497664 20.0332075 0.0561730824 0.0356773044 486
663552 20.068688 0.0562350409 0.0356422151 648
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5873871 0 0 1
165888 55.549365 0 0 162
331776 55.5925598 0 0 324
497664 55.612258 0 0 486
663552 55.5925226 0 0 648
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 20.7695693 0.0864752817 0.0354862819 1
165888 20.4017167 0.0664583843 0.0350128658 162
331776 20.3826983 0.0657030889 0.0349852396 324
497664 20.3805251 0.06510674 0.034902164 486
663552 20.3963969 0.0654360148 0.0346365735 648
EOD
set title "Quantization SQNR over training: arm=+fp4+e4m3_scales+block16+weights_2d+rht\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 e4m3 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 e4m3 2d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d rne rht16]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16]'
unset output
