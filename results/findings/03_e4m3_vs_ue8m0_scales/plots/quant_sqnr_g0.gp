# fp4lab plot 'quant_sqnr_g0' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g0.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g0.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g0.' . fmt
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
2048 55.6051057 0 0 1
262144 55.5986296 0 0 128
524288 55.57009 0 0 256
786432 55.5782146 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.4423868 0.0964760202 0.0448341066 1
262144 18.3244636 0.115934987 0.0474060201 128
524288 18.3025371 0.119053291 0.0441985156 256
786432 18.2960179 0.11683792 0.0437333143 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6412233 0 0 128
524288 55.6209164 0 0 256
786432 55.5319767 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7222048 0.0743392058 0.0382832523 1
262144 18.6503367 0.0711722666 0.0433869538 128
524288 18.6257831 0.0720015698 0.0423397758 256
786432 18.6105266 0.0721825231 0.0420836865 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1489048 0 0 1
262144 57.4285018 0 0 128
524288 57.4142017 0 0 256
786432 57.3309498 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2994282 0.122661888 0.0407905123 1
262144 18.0921086 0.169595229 0.038008165 128
524288 18.0637055 0.173475402 0.0379946724 256
786432 18.0812969 0.170401866 0.0380231313 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6412233 0 0 128
524288 55.6209164 0 0 256
786432 55.5319767 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7209855 0.0744216621 0.0379912093 1
262144 18.619308 0.0734395021 0.0422169519 128
524288 18.5983093 0.0736835351 0.0418786211 256
786432 18.5943915 0.0733034378 0.0416247923 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1489048 0 0 1
262144 57.4285018 0 0 128
524288 57.4142017 0 0 256
786432 57.3309498 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.3700253 0.108236025 0.050343796 1
262144 17.6156034 0.232777126 0.0346981079 128
524288 17.5500799 0.261664189 0.0340612855 256
786432 17.5306694 0.270774806 0.0337390444 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6051057 0 0 1
262144 55.5986296 0 0 128
524288 55.57009 0 0 256
786432 55.5782146 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.499952 0.0788246738 0.0725462679 1
262144 18.4663001 0.091187018 0.0564536088 128
524288 18.4017496 0.0997442616 0.0514263582 256
786432 18.3786395 0.100669366 0.05082083 384
EOD
set title "Quantization SQNR over training: variant=ue8m0\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 ue8m0-floor 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 ue8m0-floor 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 ue8m0-floor 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 ue8m0-floor 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 ue8m0-floor 1d rne]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 ue8m0-floor 1d rne]'
unset output
