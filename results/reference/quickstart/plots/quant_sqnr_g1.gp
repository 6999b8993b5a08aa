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
393216 55.5849442 0 0 192
524288 55.5634628 0 0 256
655360 55.5662567 0 0 320
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.5912773 0.113470447 0.0217696417 1
131072 18.5158008 0.131931747 0.0272792575 64
262144 18.3877585 0.141871661 0.023708719 128
393216 18.3698433 0.144172929 0.0223864297 192
524288 18.3462105 0.14371169 0.0218091693 256
655360 18.3537113 0.141446347 0.0217680674 320
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.6234451 0 0 64
262144 55.6546951 0 0 128
393216 55.6145233 0 0 192
524288 55.6254204 0 0 256
655360 55.5881691 0 0 320
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.857821 0.0831387959 0.0192005622 1
131072 18.7401943 0.0796247213 0.0282196852 64
262144 18.7615792 0.0814689516 0.0262675937 128
393216 18.7514175 0.0823952651 0.0248902014 192
524288 18.7537364 0.0819985688 0.0246919178 256
655360 18.7543807 0.0819848759 0.0243802186 320
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0790237 0 0 1
131072 57.5891518 0 0 64
262144 57.4602516 0 0 128
393216 57.4225388 0 0 192
524288 57.4148155 0 0 256
655360 57.2846153 0 0 320
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2696262 0.14574703 0.0234587957 1
131072 18.0356406 0.188154385 0.0218231625 64
262144 17.8659364 0.232823751 0.0210766202 128
393216 17.8643608 0.237638431 0.0210091363 192
524288 17.8746325 0.23634907 0.0209932237 256
655360 17.8846273 0.235341959 0.0209403932 320
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.6234451 0 0 64
262144 55.6546951 0 0 128
393216 55.6145233 0 0 192
524288 55.6254204 0 0 256
655360 55.5881691 0 0 320
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8594496 0.0832699085 0.0191361039 1
131072 18.7224081 0.081795635 0.02757859 64
262144 18.7182053 0.0843052457 0.0251942791 128
393216 18.692548 0.0847156342 0.024876638 192
524288 18.6995807 0.0843765501 0.0247723938 256
655360 18.6996833 0.0841842087 0.0246447688 320
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0790237 0 0 1
131072 57.5891518 0 0 64
262144 57.4602516 0 0 128
393216 57.4225388 0 0 192
524288 57.4148155 0 0 256
655360 57.2846153 0 0 320
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2430524 0.131826486 0.0294890267 1
131072 17.4612147 0.222953293 0.0198740884 64
262144 17.2909728 0.292003273 0.0184527079 128
393216 17.2559444 0.314359925 0.0182053278 192
524288 17.2562264 0.315794143 0.0182151007 256
655360 17.2319649 0.32439081 0.0180012051 320
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5811104 0 0 1
131072 55.5721603 0 0 64
262144 55.5761505 0 0 128
393216 55.5849442 0 0 192
524288 55.5634628 0 0 256
655360 55.5662567 0 0 320
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.6225576 0.0900375549 0.0519217717 1
131072 18.6766057 0.094036599 0.0520895037 64
262144 18.5436573 0.105998369 0.0377687183 128
393216 18.5030738 0.112552238 0.0350409616 192
524288 18.4589663 0.115743207 0.0335902563 256
655360 18.455459 0.116202915 0.033551764 320
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
