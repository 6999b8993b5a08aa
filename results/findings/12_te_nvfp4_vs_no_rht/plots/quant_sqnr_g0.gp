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
2048 20.4959731 0.0902491372 0.0339591567 1
262144 20.5601769 0.107281609 0.03399911 128
524288 20.5877183 0.108107865 0.0344283897 256
786432 20.5596348 0.105974712 0.0341263676 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0671601 0.100882825 0.00237606526 1
262144 18.9424968 0.109137749 0.00238424633 128
524288 18.8968849 0.110564055 0.00243957627 256
786432 18.8822598 0.109786853 0.00237412764 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3093353 0.112582222 0.0339042877 1
262144 17.3327201 0.148943286 0.0337754961 128
524288 17.3674276 0.150833064 0.0337683158 256
786432 17.3341646 0.147569793 0.0337069678 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0671601 0.100882825 0.00237606526 1
262144 18.9424968 0.109137749 0.00238424633 128
524288 18.8968849 0.110564055 0.00243957627 256
786432 18.8822598 0.109786853 0.00237412764 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.2554981 0.0992094624 0.0355013288 1
262144 17.4764935 0.206622159 0.0332975791 128
524288 17.5225963 0.22453849 0.033190702 256
786432 17.5010794 0.232504693 0.0330575611 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7052234 0.0738798779 0.0443185574 1
262144 20.5911147 0.0885250656 0.0385070375 128
524288 20.6039647 0.0963946804 0.037948578 256
786432 20.6020784 0.0958272891 0.0377224668 384
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
