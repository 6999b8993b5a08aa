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
131072 55.5765228 0 0 64
262144 55.5560638 0 0 128
393216 55.5597191 0 0 192
524288 55.5601608 0 0 256
655360 55.5562073 0 0 320
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.5912773 0.113470447 0.0217696417 1
131072 18.4800788 0.133546539 0.027665565 64
262144 18.4323732 0.140804854 0.0257426974 128
393216 18.3857892 0.14289839 0.0243811047 192
524288 18.4016648 0.142715103 0.0237740168 256
655360 18.3995386 0.14081063 0.0237819125 320
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.648539 0 0 64
262144 55.6869514 0 0 128
393216 55.6300621 0 0 192
524288 55.6001236 0 0 256
655360 55.6464073 0 0 320
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.857821 0.0831387959 0.0192005622 1
131072 18.7386177 0.0796234293 0.0281141493 64
262144 18.7640494 0.0815700956 0.0262315539 128
393216 18.7434879 0.0817252347 0.0257567067 192
524288 18.7498834 0.08190918 0.0248544199 256
655360 18.7457339 0.0816315825 0.0246821004 320
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0790237 0 0 1
131072 57.6605492 0 0 64
262144 57.3978905 0 0 128
393216 57.4010353 0 0 192
524288 57.4511665 0 0 256
655360 57.3037971 0 0 320
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2696262 0.14574703 0.0234587957 1
131072 18.0203664 0.190475591 0.0218317667 64
262144 17.9120924 0.233947591 0.0209423066 128
393216 17.8684235 0.243473332 0.0209210109 192
524288 17.8813572 0.243690369 0.0208937872 256
655360 17.8883574 0.242344447 0.020951601 320
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6537842 0 0 1
131072 55.648539 0 0 64
262144 55.6869514 0 0 128
393216 55.6300621 0 0 192
524288 55.6001236 0 0 256
655360 55.6464073 0 0 320
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8594496 0.0832699085 0.0191361039 1
131072 18.7230917 0.0813679367 0.0274216426 64
262144 18.7151976 0.0844516007 0.0251811033 128
393216 18.6954998 0.0849807011 0.0249116445 192
524288 18.6902337 0.0846861827 0.024659624 256
655360 18.6884728 0.0841552732 0.0246682787 320
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0790237 0 0 1
131072 57.6605492 0 0 64
262144 57.3978905 0 0 128
393216 57.4010353 0 0 192
524288 57.4511665 0 0 256
655360 57.3037971 0 0 320
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2430524 0.131826486 0.0294890267 1
131072 17.3701812 0.22098528 0.0198661078 64
262144 17.2198125 0.294689821 0.0183902558 128
393216 17.2563622 0.311203142 0.0182253581 192
524288 17.2657628 0.313884826 0.0182415734 256
655360 17.2702359 0.321313942 0.0182008532 320
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5811104 0 0 1
131072 55.5765228 0 0 64
262144 55.5560638 0 0 128
393216 55.5597191 0 0 192
524288 55.5601608 0 0 256
655360 55.5562073 0 0 320
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.6225576 0.0900375549 0.0519217717 1
131072 18.6255243 0.0956612178 0.0516788484 64
262144 18.6101219 0.104590098 0.0387074184 128
393216 18.5304323 0.110649054 0.0367815714 192
524288 18.5245108 0.114231642 0.0356128816 256
655360 18.5257743 0.114276117 0.0353330521 320
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
