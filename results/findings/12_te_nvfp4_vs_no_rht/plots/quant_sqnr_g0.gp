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
2048 55.5880178 0 0 1
262144 55.5677675 0 0 128
524288 55.5679131 0 0 256
786432 55.5791022 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4991961 0.0902947724 0.0346542287 1
262144 20.5791501 0.109759361 0.0341853539 128
524288 20.6083132 0.108609754 0.0344780161 256
786432 20.5646671 0.107143351 0.0346561818 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6573715 0 0 128
524288 55.5418129 0 0 256
786432 55.6323611 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0666944 0.100871307 0.00237240531 1
262144 18.937225 0.109549602 0.00239899381 128
524288 18.9102774 0.110482675 0.00239275036 256
786432 18.8934424 0.109209441 0.00240222319 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0917199 0 0 1
262144 57.4289157 0 0 128
524288 57.3515155 0 0 256
786432 57.3671284 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3118287 0.112622332 0.0342013444 1
262144 17.3364343 0.151454088 0.0339992412 128
524288 17.3601207 0.152735978 0.0339674872 256
786432 17.3633176 0.149558214 0.0339717663 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6573715 0 0 128
524288 55.5418129 0 0 256
786432 55.6323611 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0666944 0.100871307 0.00237240531 1
262144 18.937225 0.109549602 0.00239899381 128
524288 18.9102774 0.110482675 0.00239275036 256
786432 18.8934424 0.109209441 0.00240222319 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0917199 0 0 1
262144 57.4289157 0 0 128
524288 57.3515155 0 0 256
786432 57.3671284 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.2573426 0.0992100023 0.0358280758 1
262144 17.5095775 0.210259392 0.0334674693 128
524288 17.4870349 0.228078807 0.0333648005 256
786432 17.4991825 0.237156066 0.0333535027 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5880178 0 0 1
262144 55.5677675 0 0 128
524288 55.5679131 0 0 256
786432 55.5791022 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7049207 0.0738993648 0.0450188266 1
262144 20.5818394 0.0900966303 0.0393518822 128
524288 20.591288 0.0955563195 0.0382109548 256
786432 20.5691842 0.0958136656 0.0381695934 384
EOD
set title "Quantization SQNR over training: variant=nvfp4_no_rht\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [bf16 rne]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop x [fp4_e2m1/16 e4m3 1d rne]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'fprop w [bf16 rne]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'fprop w [fp4_e2m1/16 e4m3 2d rne]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'dgrad dy [bf16 rne]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne]'
unset output
