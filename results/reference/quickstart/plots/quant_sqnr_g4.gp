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
1024 55.5818014 0 0 1
165888 55.541194 0 0 162
331776 55.5506506 0 0 324
497664 55.5975351 0 0 486
663552 55.5809011 0 0 648
829440 55.5862837 0 0 810
995328 55.5683641 0 0 972
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.578384 0.113630431 0.0219403827 1
165888 18.4316943 0.146629939 0.0224603622 162
331776 18.2878472 0.156070346 0.0220529011 324
497664 18.2777309 0.156620328 0.0216204628 486
663552 18.2627408 0.157422853 0.0197439801 648
829440 18.2444445 0.157176457 0.019890876 810
995328 18.2611232 0.155422286 0.0197267986 972
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.5791121 0 0 162
331776 55.5382013 0 0 324
497664 55.915699 0 0 486
663552 55.3546429 0 0 648
829440 55.270051 0 0 810
995328 55.3158493 0 0 972
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8588239 0.0829533975 0.019175696 1
165888 18.7567504 0.0816608409 0.0264022262 162
331776 18.7340983 0.0827893451 0.0244893069 324
497664 18.707112 0.0836352791 0.0257111404 486
663552 18.6917884 0.0837047112 0.0259073248 648
829440 18.6816028 0.083933351 0.0254080636 810
995328 18.6679 0.0841127427 0.0251537504 972
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2515879 0 0 1
165888 57.556838 0 0 162
331776 57.4345512 0 0 324
497664 57.3449469 0 0 486
663552 57.2992277 0 0 648
829440 57.1128016 0 0 810
995328 57.2801428 0 0 972
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2681309 0.145388739 0.0232390904 1
165888 17.8756847 0.231677494 0.0210601262 162
331776 17.8083122 0.247855519 0.0208285651 324
497664 17.7905068 0.2542993 0.0204713458 486
663552 17.756422 0.252370592 0.0203760087 648
829440 17.7680383 0.250709322 0.0205341522 810
995328 17.7883445 0.249070213 0.0203773711 972
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.5791121 0 0 162
331776 55.5382013 0 0 324
497664 55.915699 0 0 486
663552 55.3546429 0 0 648
829440 55.270051 0 0 810
995328 55.3158493 0 0 972
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8592997 0.0831038867 0.0191543822 1
165888 18.710134 0.0855183272 0.0248934629 162
331776 18.649263 0.0866939806 0.024607502 324
497664 18.6103147 0.0881901492 0.0259660993 486
663552 18.6153536 0.0884347742 0.0255932682 648
829440 18.613718 0.0885742834 0.0248264534 810
995328 18.6036791 0.0882321309 0.0248170883 972
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2515879 0 0 1
165888 57.556838 0 0 162
331776 57.4345512 0 0 324
497664 57.3449469 0 0 486
663552 57.2992277 0 0 648
829440 57.1128016 0 0 810
995328 57.2801428 0 0 972
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2362506 0.131783561 0.0295052151 1
165888 17.3336487 0.275483616 0.0188015984 162
331776 17.2253609 0.309023524 0.0184330713 324
497664 17.1381087 0.336811141 0.0179488319 486
663552 17.0952058 0.342472592 0.0178810755 648
829440 17.0588471 0.352484415 0.017756341 810
995328 17.1116636 0.353673586 0.017807794 972
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5818014 0 0 1
165888 55.541194 0 0 162
331776 55.5506506 0 0 324
497664 55.5975351 0 0 486
663552 55.5809011 0 0 648
829440 55.5862837 0 0 810
995328 55.5683641 0 0 972
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.608832 0.0905759294 0.0513041512 1
165888 18.5747626 0.10854553 0.0380253717 162
331776 18.3828329 0.124489844 0.0330145702 324
497664 18.3618514 0.1310408 0.0317597316 486
663552 18.3563392 0.131964623 0.0302937216 648
829440 18.338771 0.135636072 0.0291338269 810
995328 18.363871 0.134617882 0.029114799 972
EOD
set title "Quantization SQNR over training: budget=1.6, recipe=mxfp4\nmean over tensors and seeds, per GEMM operand"
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
