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
2048 55.5811104 0 0 1
131072 55.5721603 0 0 64
262144 55.5761505 0 0 128
393216 55.5781769 0 0 192
524288 55.5760918 0 0 256
655360 55.5730888 0 0 320
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.5912773 0.113470447 0.0217696417 1
131072 18.5158008 0.131931747 0.0272792575 64
262144 18.3877585 0.141871661 0.023708719 128
393216 18.3602882 0.14423279 0.0221896639 192
524288 18.346813 0.143642619 0.02169425 256
655360 18.352816 0.14182422 0.0216532874 320
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.6234451 0 0 64
262144 55.6546951 0 0 128
393216 55.6059166 0 0 192
524288 55.620504 0 0 256
655360 55.6071373 0 0 320
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.857821 0.0831387959 0.0192005622 1
131072 18.7401943 0.0796247213 0.0282196852 64
262144 18.7615792 0.0814689516 0.0262675937 128
393216 18.7546449 0.0824772909 0.024833106 192
524288 18.7514334 0.0820003775 0.0246505817 256
655360 18.752987 0.0819259724 0.0243964947 320
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0790237 0 0 1
131072 57.5891518 0 0 64
262144 57.4602516 0 0 128
393216 57.3970116 0 0 192
524288 57.3918625 0 0 256
655360 57.246476 0 0 320
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2696262 0.14574703 0.0234587957 1
131072 18.0356406 0.188154385 0.0218231625 64
262144 17.8659364 0.232823751 0.0210766202 128
393216 17.859079 0.237803159 0.0210120851 192
524288 17.8766337 0.23621745 0.0210125151 256
655360 17.878627 0.235319827 0.0209948343 320
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.6234451 0 0 64
262144 55.6546951 0 0 128
393216 55.6059166 0 0 192
524288 55.620504 0 0 256
655360 55.6071373 0 0 320
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8594496 0.0832699085 0.0191361039 1
131072 18.7224081 0.081795635 0.02757859 64
262144 18.7182053 0.0843052457 0.0251942791 128
393216 18.6931351 0.0847294562 0.0248700501 192
524288 18.6979235 0.0842892281 0.024724599 256
655360 18.697338 0.0840807397 0.0246636284 320
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0790237 0 0 1
131072 57.5891518 0 0 64
262144 57.4602516 0 0 128
393216 57.3970116 0 0 192
524288 57.3918625 0 0 256
655360 57.246476 0 0 320
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2430524 0.131826486 0.0294890267 1
131072 17.4612147 0.222953293 0.0198740884 64
262144 17.2909728 0.292003273 0.0184527079 128
393216 17.2675177 0.313880478 0.0181726606 192
524288 17.2600118 0.314902745 0.0182731507 256
655360 17.2039365 0.324807769 0.0180297427 320
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5811104 0 0 1
131072 55.5721603 0 0 64
262144 55.5761505 0 0 128
393216 55.5781769 0 0 192
524288 55.5760918 0 0 256
655360 55.5730888 0 0 320
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.6225576 0.0900375549 0.0519217717 1
131072 18.6766057 0.094036599 0.0520895037 64
262144 18.5436573 0.105998369 0.0377687183 128
393216 18.4952519 0.112491747 0.0349214284 192
524288 18.458965 0.115734827 0.0334534176 256
655360 18.4553458 0.116002244 0.0336229777 320
EOD
set title "Quantization SQNR over training: recipe=mxfp4\nmean over tensors and seeds, per GEMM operand"
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
