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
2048 55.5963459 0 0 1
262144 55.5922585 0 0 128
524288 55.5811106 0 0 256
786432 55.5763321 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4976 0.0900596791 0.0346097798 1
262144 20.5808933 0.109448645 0.0347535927 128
524288 20.6161811 0.108806327 0.0347173985 256
786432 20.5847072 0.106761791 0.0344998194 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6787987 0 0 128
524288 55.5908152 0 0 256
786432 55.6016661 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4254611 0.0679960703 0.0345234006 1
262144 20.3878836 0.0666723504 0.0346697986 128
524288 20.3649741 0.0670944297 0.0345407316 256
786432 20.3420981 0.0670898011 0.0348820762 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1758887 0 0 1
262144 57.4104481 0 0 128
524288 57.3759562 0 0 256
786432 57.325496 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.5578063 0.116100781 0.0341334217 1
262144 20.6692302 0.158970545 0.0339953509 128
524288 20.685964 0.159513014 0.0339780032 256
786432 20.6605853 0.156000486 0.0339682847 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6787987 0 0 128
524288 55.5908152 0 0 256
786432 55.6016661 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4355826 0.0680535533 0.0346581729 1
262144 20.4246928 0.068762401 0.0345415927 128
524288 20.4351135 0.0688592817 0.0345298591 256
786432 20.4309379 0.0684902723 0.0347110271 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1758887 0 0 1
262144 57.4104481 0 0 128
524288 57.3759562 0 0 256
786432 57.325496 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4805942 0.102211967 0.0358292313 1
262144 20.9994786 0.228403439 0.0334765419 128
524288 21.0247985 0.244143441 0.0334041434 256
786432 20.9764436 0.252036352 0.0333899645 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5963459 0 0 1
262144 55.5922585 0 0 128
524288 55.5811106 0 0 256
786432 55.5763321 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.70356 0.0737133831 0.0449685242 1
262144 20.5486895 0.0898312462 0.0391250037 128
524288 20.5678393 0.095282681 0.0386084753 256
786432 20.5672813 0.0953775082 0.0381019279 384
EOD
set title "Quantization SQNR over training: variant=e4m3\nmean over tensors and seeds, per GEMM operand"
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
