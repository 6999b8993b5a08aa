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
2048 55.5960979 0 0 1
262144 55.5942815 0 0 128
524288 55.5827726 0 0 256
786432 55.574283 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.497645 0.0900640131 0.0346113035 1
262144 20.5819827 0.10892696 0.034819971 128
524288 20.6090472 0.108134028 0.034499855 256
786432 20.5860288 0.106941324 0.0342397033 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6471176 0 0 128
524288 55.6400223 0 0 256
786432 55.5986487 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4254611 0.0679960703 0.0345234006 1
262144 20.3857235 0.0664765429 0.0346762575 128
524288 20.3662394 0.0670798976 0.0345092991 256
786432 20.3378222 0.0668958229 0.0344605354 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1762835 0 0 1
262144 57.4398518 0 0 128
524288 57.4079158 0 0 256
786432 57.3021927 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.5563049 0.116098197 0.0341351525 1
262144 20.6839436 0.159387765 0.0339947855 128
524288 20.6920366 0.160788637 0.0339576833 256
786432 20.6924036 0.157702557 0.0339663318 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6471176 0 0 128
524288 55.6400223 0 0 256
786432 55.5986487 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4355826 0.0680535533 0.0346581729 1
262144 20.416611 0.0682473158 0.0347771217 128
524288 20.4311232 0.0687220334 0.0345535414 256
786432 20.4304698 0.0684058782 0.0344926138 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1762835 0 0 1
262144 57.4398518 0 0 128
524288 57.4079158 0 0 256
786432 57.3021927 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4798004 0.102218906 0.0358350844 1
262144 20.9618841 0.220226363 0.0334973561 128
524288 20.9625332 0.242639561 0.0334025135 256
786432 20.9778588 0.251995849 0.0333396064 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5960979 0 0 1
262144 55.5942815 0 0 128
524288 55.5827726 0 0 256
786432 55.574283 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7036083 0.0737181061 0.0449669903 1
262144 20.604774 0.0886882649 0.0397339121 128
524288 20.58423 0.09533147 0.0381347665 256
786432 20.5835942 0.0955492904 0.0381237413 384
EOD
set title "Quantization SQNR over training: variant=block16\nmean over tensors and seeds, per GEMM operand"
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
