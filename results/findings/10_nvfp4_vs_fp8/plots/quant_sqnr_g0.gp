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
262144 20.6080408 0.109145559 0.0341935486 128
524288 20.587122 0.109205947 0.0335282422 256
786432 20.5670199 0.106483182 0.0336528453 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0671601 0.100882825 0.00237606526 1
262144 18.9361768 0.10971107 0.00244312858 128
524288 18.8964426 0.110515615 0.00239005922 256
786432 18.8852096 0.109233661 0.0023879063 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.3093353 0.112582222 0.0339042877 1
262144 17.3317631 0.150768861 0.0337482532 128
524288 17.3550588 0.152331887 0.0336467097 256
786432 17.3586573 0.149139581 0.0336427789 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0671601 0.100882825 0.00237606526 1
262144 18.9361768 0.10971107 0.00244312858 128
524288 18.8964426 0.110515615 0.00239005922 256
786432 18.8852096 0.109233661 0.0023879063 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 17.1859029 0.0721779828 0.0352696516 1
262144 17.0020091 0.0576095986 0.035542029 128
524288 16.9793602 0.0568470829 0.0354944562 256
786432 16.9700216 0.0561589135 0.0354966611 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7668946 0.086017109 0.0356999652 1
262144 20.3909038 0.0667716939 0.0347264558 128
524288 20.3629812 0.0657788233 0.0346760473 256
786432 20.3490093 0.0656088473 0.0347847512 384
EOD
set title "Quantization SQNR over training: variant=nvfp4\nmean over tensors and seeds, per GEMM operand"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set xlabel 'tokens (log scale)'
set ylabel 'SQNR (dB)'
plot $q0 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#0072B2' title 'fprop x [fp4_e2m1/16 e4m3 1d rne bf16-in]', \
     $q1 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#D55E00' title 'fprop w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q2 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#009E73' title 'dgrad dy [fp4_e2m1/16 e4m3 1d sr bf16-in]', \
     $q3 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#CC79A7' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne bf16-in]', \
     $q4 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#E69F00' title 'wgrad dy [fp4_e2m1/16 e4m3 1d sr rht16 bf16-in]', \
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16 bf16-in]'
unset output
