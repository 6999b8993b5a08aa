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
2048 55.6146238 0 0 1
262144 55.6278675 0 0 128
524288 55.6349169 0 0 256
786432 55.6117122 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4974452 0.0900343336 0.0348036479 1
262144 20.70274 0.114807712 0.0343096216 128
524288 20.6300336 0.115648799 0.0344256372 256
786432 20.622223 0.111849285 0.0342441891 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5996605 0 0 1
262144 55.6252132 0 0 128
524288 55.6080657 0 0 256
786432 55.6005739 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0696435 0.10107987 0.00237165179 1
262144 18.9565097 0.108361138 0.00234113421 128
524288 18.9050331 0.110086431 0.0023752041 256
786432 18.8856811 0.109215792 0.00241912358 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 56.5403074 0 0 1
262144 55.835096 0 0 128
524288 55.807246 0 0 256
786432 55.8196342 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3064092 0.112767939 0.0341439701 1
262144 17.3374943 0.144883504 0.0340057631 128
524288 17.3259229 0.148960908 0.0340059751 256
786432 17.3330693 0.147205315 0.0340477699 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5996605 0 0 1
262144 55.6252132 0 0 128
524288 55.6080657 0 0 256
786432 55.6005739 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0696435 0.10107987 0.00237165179 1
262144 18.9565097 0.108361138 0.00234113421 128
524288 18.9050331 0.110086431 0.0023752041 256
786432 18.8856811 0.109215792 0.00241912358 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 56.5403074 0 0 1
262144 55.835096 0 0 128
524288 55.807246 0 0 256
786432 55.8196342 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1433443 0.0721248751 0.0352805379 1
262144 16.9415303 0.0570084483 0.0356128025 128
524288 16.9744755 0.056259269 0.0357224071 256
786432 16.9552984 0.0559335967 0.0356086321 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6146238 0 0 1
262144 55.6278675 0 0 128
524288 55.6349169 0 0 256
786432 55.6117122 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.728358 0.0850209357 0.0357364397 1
262144 20.3949377 0.0666370545 0.0349985608 128
524288 20.3786283 0.0654014023 0.0348816297 256
786432 20.3623867 0.0653494574 0.0346612174 384
EOD
set title "Quantization SQNR over training: variant=keep_last_1\nmean over tensors and seeds, per GEMM operand"
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
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16]'
unset output
