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
262144 55.588789 0 0 128
524288 55.5875969 0 0 256
786432 55.5870342 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.4423868 0.0964760202 0.0448341066 1
262144 18.3100374 0.115971889 0.0474651326 128
524288 18.2955176 0.116699562 0.0444947298 256
786432 18.2802045 0.115592639 0.0441195272 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6579259 0 0 128
524288 55.644722 0 0 256
786432 55.5577431 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7222048 0.0743392058 0.0382832523 1
262144 18.6383882 0.0709589128 0.0433792034 128
524288 18.6291998 0.0722299943 0.0420799188 256
786432 18.6172173 0.0721432319 0.0422730355 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1489048 0 0 1
262144 57.4382127 0 0 128
524288 57.3826052 0 0 256
786432 57.4175339 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2994282 0.122661888 0.0407905123 1
262144 18.0806663 0.168540369 0.038242007 128
524288 18.0501264 0.171012016 0.0380686854 256
786432 18.0653089 0.167913159 0.0381651631 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6579259 0 0 128
524288 55.644722 0 0 256
786432 55.5577431 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7209855 0.0744216621 0.0379912093 1
262144 18.6061175 0.0736065683 0.0418790518 128
524288 18.6001762 0.074183442 0.0416619301 256
786432 18.5999689 0.0735882687 0.0419608628 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1489048 0 0 1
262144 57.4382127 0 0 128
524288 57.3826052 0 0 256
786432 57.4175339 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.3700253 0.108236025 0.050343796 1
262144 17.5921747 0.232879365 0.0345589875 128
524288 17.5474156 0.256816778 0.0339862429 256
786432 17.5119729 0.266586369 0.0337602877 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6051057 0 0 1
262144 55.588789 0 0 128
524288 55.5875969 0 0 256
786432 55.5870342 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.499952 0.0788246738 0.0725462679 1
262144 18.4717014 0.0926529668 0.0563996885 128
524288 18.3893421 0.100558417 0.0500664837 256
786432 18.3700574 0.101601626 0.0495403886 384
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
