# fp4lab plot 'quant_sqnr_g4' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g4.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g4.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g4.' . fmt
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
2048 55.5898304 0 0 1
262144 55.5768719 0 0 128
524288 55.5723775 0 0 256
786432 55.5748552 0 0 384
1048576 55.5845985 0 0 512
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.5836704 0.114092347 0.021456673 1
262144 18.4282131 0.142934007 0.0252327439 128
524288 18.3418194 0.148069412 0.0218896311 256
786432 18.3152742 0.148229776 0.0203225272 384
1048576 18.3147389 0.147088343 0.0199387465 512
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6655782 0 0 128
524288 55.6384964 0 0 256
786432 55.5653235 0 0 384
1048576 55.5706228 0 0 512
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8570491 0.0830976967 0.0191559968 1
262144 18.7465693 0.0818844209 0.0264824761 128
524288 18.7404938 0.0834413017 0.0238369735 256
786432 18.6934053 0.0827522614 0.0244423733 384
1048576 18.6573307 0.0825840108 0.0249049272 512
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.480992 0 0 128
524288 57.407725 0 0 256
786432 57.2806746 0 0 384
1048576 57.2577031 0 0 512
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2770185 0.145575478 0.0235010834 1
262144 17.8805413 0.231845563 0.0208811735 128
524288 17.8198501 0.239815758 0.0207852712 256
786432 17.8114132 0.23772984 0.0206975785 384
1048576 17.799874 0.236140564 0.0206417962 512
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6655782 0 0 128
524288 55.6384964 0 0 256
786432 55.5653235 0 0 384
1048576 55.5706228 0 0 512
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8573772 0.083133758 0.0191603027 1
262144 18.6940929 0.0849207856 0.0254002054 128
524288 18.6839139 0.0856694619 0.024051942 256
786432 18.642842 0.0851883927 0.0251675829 384
1048576 18.6135091 0.0847752483 0.025522491 512
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.480992 0 0 128
524288 57.407725 0 0 256
786432 57.2806746 0 0 384
1048576 57.2577031 0 0 512
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8180359 0.0819901965 0.0255633157 1
262144 18.9358543 0.0733423435 0.028333008 128
524288 18.9417829 0.0728712233 0.0282924189 256
786432 18.9559858 0.0722574964 0.0285485686 384
1048576 18.953908 0.071872782 0.0287258865 512
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5898304 0 0 1
262144 55.5768719 0 0 128
524288 55.5723775 0 0 256
786432 55.5748552 0 0 384
1048576 55.5845985 0 0 512
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7753552 0.0951173314 0.023708399 1
262144 18.7729542 0.0856156023 0.0245830243 128
524288 18.7848989 0.0840901372 0.0252332839 256
786432 18.791119 0.0838682637 0.025176674 384
1048576 18.7908321 0.0835544595 0.0251133681 512
EOD
set title "Quantization SQNR over training: budget=1.5, format=mxfp4\nmean over tensors and seeds, per GEMM operand"
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
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/32 ue8m0-floor 1d rne rht32]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/32 ue8m0-floor 1d rne rht32]'
unset output
