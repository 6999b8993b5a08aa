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
262144 55.5880572 0 0 128
524288 55.5770423 0 0 256
786432 55.565286 0 0 384
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.4991961 0.0902947724 0.0346542287 1
262144 20.6378775 0.109310327 0.0344900098 128
524288 20.587995 0.108916706 0.0342219771 256
786432 20.5501257 0.107499859 0.0341390176 384
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6696091 0 0 128
524288 55.610515 0 0 256
786432 55.6177629 0 0 384
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0666944 0.100871307 0.00237240531 1
262144 18.9393793 0.108485416 0.00237875641 128
524288 18.8997198 0.11058623 0.0024182624 256
786432 18.8846985 0.109531194 0.00244355916 384
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0917199 0 0 1
262144 57.4762039 0 0 128
524288 57.3365733 0 0 256
786432 57.3328196 0 0 384
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.5611667 0.116077968 0.034109489 1
262144 20.6573807 0.155274674 0.0340464758 128
524288 20.6917074 0.158562262 0.0339824384 256
786432 20.6652148 0.155754746 0.0339985499 384
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6696091 0 0 128
524288 55.610515 0 0 256
786432 55.6177629 0 0 384
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 19.0666944 0.100871307 0.00237240531 1
262144 18.9393793 0.108485416 0.00237875641 128
524288 18.8997198 0.11058623 0.0024182624 256
786432 18.8846985 0.109531194 0.00244355916 384
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.0917199 0 0 1
262144 57.4762039 0 0 128
524288 57.3365733 0 0 256
786432 57.3328196 0 0 384
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.36232 0.0732834427 0.0353547354 1
262144 20.1220038 0.0577663038 0.035583819 128
524288 20.088947 0.0567408819 0.0354164568 256
786432 20.0763051 0.0563011676 0.0356596788 384
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5880178 0 0 1
262144 55.5880572 0 0 128
524288 55.5770423 0 0 256
786432 55.565286 0 0 384
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 20.7696483 0.0863163055 0.0359403267 1
262144 20.3823462 0.0667275473 0.0347204007 128
524288 20.3651558 0.0654728096 0.0347583507 256
786432 20.3541957 0.0654053917 0.0347634674 384
EOD
set title "Quantization SQNR over training: variant=rne_gradients\nmean over tensors and seeds, per GEMM operand"
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
     $q5 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#56B4E9' title 'dgrad dy [fp4_e2m1/16 e4m3 1d rne]', \
     $q6 using 1:2 with linespoints lw 1.5 pt 4 ps 0.6 lc rgb '#F0E442' title 'dgrad w [bf16 rne]', \
     $q7 using 1:2 with linespoints lw 1.5 pt 5 ps 0.6 lc rgb '#882255' title 'dgrad w [fp4_e2m1/16 e4m3 2d rne]', \
     $q8 using 1:2 with linespoints lw 1.5 pt 6 ps 0.6 lc rgb '#44AA99' title 'wgrad dy [bf16 rne]', \
     $q9 using 1:2 with linespoints lw 1.5 pt 7 ps 0.6 lc rgb '#999933' title 'wgrad dy [fp4_e2m1/16 e4m3 1d rne rht16]', \
     $q10 using 1:2 with linespoints lw 1.5 pt 8 ps 0.6 lc rgb '#0072B2' title 'wgrad x [bf16 rne]', \
     $q11 using 1:2 with linespoints lw 1.5 pt 9 ps 0.6 lc rgb '#D55E00' title 'wgrad x [fp4_e2m1/16 e4m3 1d rne rht16]'
unset output
