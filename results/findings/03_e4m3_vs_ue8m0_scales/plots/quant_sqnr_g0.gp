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
262144 55.5992044 0 0 128
524288 55.5814527 0 0 256
786432 55.5796928 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.4423868 0.0964760202 0.0448341066 1
262144 18.3568019 0.116253383 0.0482811451 128
524288 18.3129086 0.116372739 0.0456194701 256
786432 18.3034725 0.116008572 0.0449767997 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6821321 0 0 128
524288 55.6494865 0 0 256
786432 55.5705255 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7222048 0.0743392058 0.0382832523 1
262144 18.6490572 0.0712447124 0.0431266665 128
524288 18.6292665 0.0724992163 0.0422254558 256
786432 18.6186228 0.0720448438 0.0415306025 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1489048 0 0 1
262144 57.4629364 0 0 128
524288 57.3962434 0 0 256
786432 57.3010616 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2994282 0.122661888 0.0407905123 1
262144 18.1008947 0.168671451 0.0381766679 128
524288 18.0843214 0.171981494 0.0379644828 256
786432 18.0771587 0.169553045 0.0381894791 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6821321 0 0 128
524288 55.6494865 0 0 256
786432 55.5705255 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7209855 0.0744216621 0.0379912093 1
262144 18.6224577 0.0737859063 0.0419237249 128
524288 18.6054593 0.0743305941 0.0413032547 256
786432 18.5911479 0.0733935375 0.0413496499 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1489048 0 0 1
262144 57.4629364 0 0 128
524288 57.3962434 0 0 256
786432 57.3010616 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.3700253 0.108236025 0.050343796 1
262144 17.5734284 0.240039522 0.0343825829 128
524288 17.5555305 0.261302812 0.0340057201 256
786432 17.5137357 0.273302638 0.0336766672 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6051057 0 0 1
262144 55.5992044 0 0 128
524288 55.5814527 0 0 256
786432 55.5796928 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.499952 0.0788246738 0.0725462679 1
262144 18.4858474 0.0931007442 0.05622062 128
524288 18.398495 0.0998452809 0.0515599782 256
786432 18.3900144 0.101728672 0.0511694458 384
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
