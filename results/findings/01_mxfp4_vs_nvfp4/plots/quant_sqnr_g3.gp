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
2048 55.5898304 0 0 1
262144 55.5747414 0 0 128
524288 55.5838451 0 0 256
786432 55.5816447 0 0 384
1048576 55.5884247 0 0 512
EOD
$q1 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.5836704 0.114092347 0.021456673 1
262144 18.3732219 0.143130287 0.0237604122 128
524288 18.3959649 0.148110748 0.0209893675 256
786432 18.3730403 0.149278474 0.0202025308 384
1048576 18.349555 0.14776683 0.0199932017 512
EOD
$q2 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6637313 0 0 128
524288 55.6475741 0 0 256
786432 55.5217705 0 0 384
1048576 55.6704419 0 0 512
EOD
$q3 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8570491 0.0830976967 0.0191559968 1
262144 18.7376068 0.082082597 0.0266789296 128
524288 18.731072 0.0830057673 0.0238946716 256
786432 18.6863872 0.0832475397 0.0244984567 384
1048576 18.6509701 0.0826235168 0.0248365722 512
EOD
$q4 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.4523773 0 0 128
524288 57.3709094 0 0 256
786432 57.2962596 0 0 384
1048576 57.2505709 0 0 512
EOD
$q5 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.2770185 0.145575478 0.0235010834 1
262144 17.8545908 0.232685972 0.0208541174 128
524288 17.8023434 0.242032017 0.0207544357 256
786432 17.783114 0.242301729 0.0206046028 384
1048576 17.7929134 0.240553408 0.020628258 512
EOD
$q6 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.6415933 0 0 1
262144 55.6637313 0 0 128
524288 55.6475741 0 0 256
786432 55.5217705 0 0 384
1048576 55.6704419 0 0 512
EOD
$q7 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8573772 0.083133758 0.0191603027 1
262144 18.6982192 0.085157499 0.0252407821 128
524288 18.6744799 0.0857419074 0.0240205095 256
786432 18.626833 0.0858843233 0.0251937409 384
1048576 18.6040043 0.0853284401 0.025283625 512
EOD
$q8 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 63.1337516 0 0 1
262144 57.4523773 0 0 128
524288 57.3709094 0 0 256
786432 57.2962596 0 0 384
1048576 57.2505709 0 0 512
EOD
$q9 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.8180359 0.0819901965 0.0255633157 1
262144 18.9318321 0.0740359171 0.0278715255 128
524288 18.9396504 0.0728573117 0.0283466773 256
786432 18.9564099 0.0718021041 0.0288975882 384
1048576 18.9562732 0.0719326313 0.0288390507 512
EOD
$q10 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 55.5898304 0 0 1
262144 55.5747414 0 0 128
524288 55.5838451 0 0 256
786432 55.5816447 0 0 384
1048576 55.5884247 0 0 512
EOD
$q11 << EOD
# tokens sqnr_db frac_flushed frac_saturated step
2048 18.7753552 0.0951173314 0.023708399 1
262144 18.7677357 0.0858575328 0.0244847253 128
524288 18.7870643 0.0840118195 0.0251709116 256
786432 18.7908327 0.0835432326 0.0251546486 384
1048576 18.7929218 0.0834150819 0.0250081663 512
EOD
set title "Quantization SQNR over training: format=mxfp4, train.tokens=1179648\nmean over tensors and seeds, per GEMM operand"
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
