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
1024 55.5818014 0 0 1
165888 55.6171055 0 0 162
331776 55.5820131 0 0 324
497664 55.6077099 0 0 486
663552 55.5693369 0 0 648
829440 55.6020203 0 0 810
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.578384 0.113630431 0.0219403827 1
165888 18.4602016 0.146072721 0.0235522436 162
331776 18.4067704 0.150531148 0.0222632697 324
497664 18.2768935 0.15144943 0.0215961973 486
663552 18.2648614 0.15112503 0.0210337866 648
829440 18.260122 0.151550339 0.0204448853 810
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.574914 0 0 162
331776 55.4595633 0 0 324
497664 55.9139814 0 0 486
663552 55.5482512 0 0 648
829440 55.4873104 0 0 810
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8588239 0.0829533975 0.019175696 1
165888 18.7641529 0.0820506259 0.0255621048 162
331776 18.7225438 0.0825854106 0.0247353852 324
497664 18.6719349 0.0827294404 0.0266810826 486
663552 18.6436964 0.082622225 0.0267096626 648
829440 18.6318743 0.0822166159 0.0269639757 810
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2515879 0 0 1
165888 57.4950323 0 0 162
331776 57.5061893 0 0 324
497664 57.308403 0 0 486
663552 57.3038406 0 0 648
829440 57.2809772 0 0 810
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2681309 0.145388739 0.0232390904 1
165888 17.8583528 0.235546914 0.0210086127 162
331776 17.7660393 0.252072153 0.0209589005 324
497664 17.7661695 0.253456615 0.0206084629 486
663552 17.8033025 0.248662677 0.020836376 648
829440 17.7729417 0.247742063 0.0207291709 810
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.6637459 0 0 1
165888 55.574914 0 0 162
331776 55.4595633 0 0 324
497664 55.9139814 0 0 486
663552 55.5482512 0 0 648
829440 55.4873104 0 0 810
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.8592997 0.0831038867 0.0191543822 1
165888 18.7290569 0.0850114774 0.0244986721 162
331776 18.6514759 0.0860705503 0.0248844207 324
497664 18.6014685 0.0866561969 0.0268184923 486
663552 18.5823101 0.0858031578 0.0270776497 648
829440 18.5770744 0.0854484115 0.0270950883 810
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 63.2515879 0 0 1
165888 57.4950323 0 0 162
331776 57.5061893 0 0 324
497664 57.308403 0 0 486
663552 57.3038406 0 0 648
829440 57.2809772 0 0 810
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.2362506 0.131783561 0.0295052151 1
165888 17.2197415 0.294913414 0.0184446365 162
331776 17.1829166 0.321279828 0.0183718091 324
497664 17.1175148 0.339196675 0.017919389 486
663552 17.1308179 0.340480805 0.017937206 648
829440 17.1066677 0.348559758 0.0178254747 810
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 55.5818014 0 0 1
165888 55.6171055 0 0 162
331776 55.5820131 0 0 324
497664 55.6077099 0 0 486
663552 55.5693369 0 0 648
829440 55.6020203 0 0 810
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
1024 18.608832 0.0905759294 0.0513041512 1
165888 18.5517834 0.110627658 0.0382187708 162
331776 18.4472773 0.120771862 0.0345805788 324
497664 18.3673511 0.127093542 0.032211546 486
663552 18.3688569 0.12726484 0.0324351449 648
829440 18.3622031 0.130665188 0.031008463 810
EOD
set title "Quantization SQNR over training: budget=1.25, recipe=mxfp4\nmean over tensors and seeds, per GEMM operand"
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
