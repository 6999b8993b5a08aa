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
2048 55.6095435 0 0 1
262144 55.559363 0 0 128
524288 55.5759919 0 0 256
786432 55.6081136 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.8380717 0.103913343 0.0179961472 1
262144 19.8120185 0.132458914 0.0179712911 128
524288 19.7957082 0.132810108 0.0175201578 256
786432 19.7780408 0.130170322 0.0174645872 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6604074 0 0 128
524288 55.6164831 0 0 256
786432 55.5174084 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.8452498 0.0773662048 0.0178554206 1
262144 19.834367 0.0757645431 0.0177703803 128
524288 19.7963274 0.0764379757 0.0178527294 256
786432 19.7742744 0.0764319474 0.0176691934 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1402225 0 0 1
262144 57.4817816 0 0 128
524288 57.3778769 0 0 256
786432 57.2284629 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.7644762 0.137496565 0.0174185587 1
262144 19.6627027 0.219541338 0.0172229494 128
524288 19.693907 0.222484916 0.0172280508 256
786432 19.680596 0.217696155 0.017232027 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6604074 0 0 128
524288 55.6164831 0 0 256
786432 55.5174084 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.8574509 0.0774026965 0.0178699527 1
262144 19.8478957 0.0785658098 0.0177712415 128
524288 19.8483648 0.079167657 0.0178421801 256
786432 19.8527327 0.0788150092 0.0176561682 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1402225 0 0 1
262144 57.4817816 0 0 128
524288 57.3778769 0 0 256
786432 57.2284629 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.7213033 0.12452885 0.0184811134 1
262144 19.6096503 0.276183881 0.0169423876 128
524288 19.6376375 0.301565745 0.0168907225 256
786432 19.6091507 0.314369615 0.016866351 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6095435 0 0 1
262144 55.559363 0 0 128
524288 55.5759919 0 0 256
786432 55.6081136 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.0704859 0.0840343852 0.026127346 1
262144 19.9365529 0.103190457 0.0224344417 128
524288 19.88408 0.112800765 0.0209442472 256
786432 19.8762452 0.112573508 0.0209365521 384
EOD
set title "Quantization SQNR over training: variant=block32\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/32 e4m3 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/32 e4m3 1d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/32 e4m3 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/32 e4m3 1d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/32 e4m3 1d rne]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/32 e4m3 1d rne]'
unset output
