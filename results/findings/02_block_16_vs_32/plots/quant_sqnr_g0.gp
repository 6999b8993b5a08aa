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
262144 55.5493457 0 0 128
524288 55.5769405 0 0 256
786432 55.5720406 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.8380716 0.103913297 0.0179961472 1
262144 19.8036874 0.131700082 0.0180110478 128
524288 19.7999512 0.13350176 0.0175057819 256
786432 19.7773663 0.130614245 0.0178376759 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6702283 0 0 128
524288 55.6790053 0 0 256
786432 55.5405795 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.8452498 0.0773662048 0.0178554206 1
262144 19.8312485 0.0759292413 0.0177222627 128
524288 19.8085338 0.0764769433 0.017887822 256
786432 19.774539 0.0762354935 0.017597286 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1402225 0 0 1
262144 57.45482 0 0 128
524288 57.4114621 0 0 256
786432 57.3151423 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.7644925 0.137496065 0.0174192449 1
262144 19.6848269 0.224983064 0.0172387128 128
524288 19.6737286 0.227062578 0.0172141746 256
786432 19.6753689 0.221358451 0.0172507675 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6702283 0 0 128
524288 55.6790053 0 0 256
786432 55.5405795 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.8574509 0.0774026965 0.0178699527 1
262144 19.8547834 0.0788927298 0.0177914789 128
524288 19.8465076 0.0793697078 0.0177005182 256
786432 19.849083 0.078843428 0.0177040705 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1402225 0 0 1
262144 57.45482 0 0 128
524288 57.4114621 0 0 256
786432 57.3151423 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.7213022 0.12452839 0.0184811537 1
262144 19.6470006 0.270739726 0.0169444059 128
524288 19.6132532 0.297531773 0.0168925895 256
786432 19.5963486 0.309903155 0.0168761047 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6095435 0 0 1
262144 55.5493457 0 0 128
524288 55.5769405 0 0 256
786432 55.5720406 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.070486 0.0840343398 0.026127346 1
262144 19.9408257 0.101501611 0.0227199282 128
524288 19.8676095 0.111241245 0.0212052562 256
786432 19.854616 0.111628411 0.0214324831 384
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
