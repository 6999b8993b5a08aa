# fp4lab plot 'quant_sqnr_g2' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g2.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g2.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g2.' . fmt
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
262144 55.5803363 0 0 128
524288 55.5751489 0 0 256
786432 55.5737724 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.5836704 0.114092347 0.021456673 1
262144 18.4012559 0.144643279 0.0243704205 128
524288 18.3784433 0.147834979 0.0219427846 256
786432 18.3511676 0.146496419 0.0206141496 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6712348 0 0 128
524288 55.6480993 0 0 256
786432 55.5186545 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8570491 0.0830976967 0.0191559968 1
262144 18.7364955 0.0820134886 0.0262221887 128
524288 18.7415315 0.0830517321 0.0241656161 256
786432 18.6898439 0.0824747507 0.0243316059 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.4253349 0 0 128
524288 57.4213168 0 0 256
786432 57.290027 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2770185 0.145575478 0.0235010834 1
262144 17.8382854 0.233973816 0.02085606 128
524288 17.8338411 0.241956489 0.0207334751 256
786432 17.7891037 0.236928567 0.0206850799 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6712348 0 0 128
524288 55.6480993 0 0 256
786432 55.5186545 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8573772 0.083133758 0.0191603027 1
262144 18.6889668 0.0850606172 0.0251203265 128
524288 18.6843003 0.08578249 0.0243505515 256
786432 18.6416228 0.0848810641 0.0246875904 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.4253349 0 0 128
524288 57.4213168 0 0 256
786432 57.290027 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8180359 0.0819901965 0.0255633157 1
262144 18.9249251 0.0740065548 0.0277344033 128
524288 18.9571529 0.0732627441 0.0280104491 256
786432 18.9471427 0.0725319523 0.0284326946 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5898304 0 0 1
262144 55.5803363 0 0 128
524288 55.5751489 0 0 256
786432 55.5737724 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7753552 0.0951173314 0.023708399 1
262144 18.7723665 0.0856120898 0.0242415938 128
524288 18.7774677 0.0840584593 0.0251331128 256
786432 18.7840085 0.0840991238 0.0251512073 384
EOD
set title "Quantization SQNR over training: format=mxfp4, train.tokens=983040\nmean over tensors and seeds, per GEMM operand"
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
