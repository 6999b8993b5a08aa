# fp4lab plot 'quant_sqnr_g3' (written by fp4lab; data inline).
# Re-render: gnuplot quant_sqnr_g3.gp   or   gnuplot -e "fmt='svg'" quant_sqnr_g3.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'quant_sqnr_g3.' . fmt
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
2048 20.4966881 0.0910033878 0.0340522787 1
262144 20.6155095 0.108059535 0.0342011123 128
524288 20.5872203 0.109940645 0.0339084706 256
786432 20.56798 0.107275312 0.0341961468 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0661545 0.10097217 0.00233677455 1
262144 18.9446276 0.108765294 0.00239899381 128
524288 18.9023418 0.11070744 0.00244076037 256
786432 18.9116872 0.109829266 0.00239404211 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3118883 0.112201852 0.0339822215 1
262144 17.328951 0.15191495 0.0337841398 128
524288 17.3693323 0.152310901 0.0338513107 256
786432 17.342895 0.148563405 0.0336981575 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0661545 0.10097217 0.00233677455 1
262144 18.9446276 0.108765294 0.00239899381 128
524288 18.9023418 0.11070744 0.00244076037 256
786432 18.9116872 0.109829266 0.00239404211 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.2513345 0.0991426497 0.0355353886 1
262144 17.5165602 0.209148497 0.0333846865 128
524288 17.5004529 0.225484424 0.0332567326 256
786432 17.4758005 0.23605167 0.0331415142 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7044666 0.0742134119 0.0448898539 1
262144 20.590676 0.0891815773 0.0388975298 128
524288 20.6020266 0.0958868558 0.0378854643 256
786432 20.5830979 0.0966396134 0.0372031981 384
EOD
set title "Quantization SQNR over training: variant=te_nvfp4_no_rht\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne bf16-in]'
unset output
