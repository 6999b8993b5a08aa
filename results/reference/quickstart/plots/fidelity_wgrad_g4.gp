# fp4lab plot 'fidelity_wgrad_g4' (written by fp4lab; data inline).
# Re-render: gnuplot fidelity_wgrad_g4.gp   or   gnuplot -e "fmt='svg'" fidelity_wgrad_g4.gp
if (!exists("fmt")) fmt = 'png'
if (!exists("out")) out = 'fidelity_wgrad_g4.' . fmt
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
$l0 << EOD
# tokens gain gain gain step
1024 0.99987032 0.99987032 0.99987032 1
331776 0.999440312 0.999440312 0.999440312 324
663552 0.999548217 0.999548217 0.999548217 648
EOD
$l1 << EOD
# tokens gain gain gain step
1024 0.999835779 0.999835779 0.999835779 1
331776 0.999695599 0.999695599 0.999695599 324
663552 0.999929647 0.999929647 0.999929647 648
EOD
$l2 << EOD
# tokens gain gain gain step
1024 1.0001023 1.0001023 1.0001023 1
331776 0.999631594 0.999631594 0.999631594 324
663552 1.00001877 1.00001877 1.00001877 648
EOD
$l3 << EOD
# tokens gain gain gain step
1024 1.00003859 1.00003859 1.00003859 1
331776 0.999320408 0.999320408 0.999320408 324
663552 1.00003847 1.00003847 1.00003847 648
EOD
$l4 << EOD
# tokens gain gain gain step
1024 0.999625325 0.999625325 0.999625325 1
331776 0.999053111 0.999053111 0.999053111 324
663552 0.999806692 0.999806692 0.999806692 648
EOD
$l5 << EOD
# tokens gain gain gain step
1024 1.00049088 1.00049088 1.00049088 1
331776 0.999150276 0.999150276 0.999150276 324
663552 1.0001877 1.0001877 1.0001877 648
EOD
$l6 << EOD
# tokens gain gain gain step
1024 0.999764472 0.999764472 0.999764472 1
331776 0.999446054 0.999446054 0.999446054 324
663552 1.00012622 1.00012622 1.00012622 648
EOD
$l7 << EOD
# tokens gain gain gain step
1024 0.99977239 0.99977239 0.99977239 1
331776 0.999872377 0.999872377 0.999872377 324
663552 0.99971205 0.99971205 0.99971205 648
EOD
$l8 << EOD
# tokens gain gain gain step
1024 0.999808242 0.999808242 0.999808242 1
331776 0.999797503 0.999797503 0.999797503 324
663552 0.999704957 0.999704957 0.999704957 648
EOD
$l9 << EOD
# tokens gain gain gain step
1024 0.999767552 0.999767552 0.999767552 1
331776 0.999563128 0.999563128 0.999563128 324
663552 0.999977599 0.999977599 0.999977599 648
EOD
$l10 << EOD
# tokens gain gain gain step
1024 1.000066 1.000066 1.000066 1
331776 0.998897016 0.998897016 0.998897016 324
663552 1.00027104 1.00027104 1.00027104 648
EOD
$l11 << EOD
# tokens gain gain gain step
1024 0.999822954 0.999822954 0.999822954 1
331776 0.999801159 0.999801159 0.999801159 324
663552 0.999734282 0.999734282 0.999734282 648
EOD
$l12 << EOD
# tokens gain gain gain step
1024 0.999713659 0.999713659 0.999713659 1
331776 0.998929759 0.998929759 0.998929759 324
663552 1.00071715 1.00071715 1.00071715 648
EOD
$l13 << EOD
# tokens gain gain gain step
1024 0.999576728 0.999576728 0.999576728 1
331776 0.99877424 0.99877424 0.99877424 324
663552 0.999423256 0.999423256 0.999423256 648
EOD
$l14 << EOD
# tokens gain gain gain step
1024 0.99980695 0.99980695 0.99980695 1
331776 1.00012685 1.00012685 1.00012685 324
663552 1.0000442 1.0000442 1.0000442 648
EOD
$l15 << EOD
# tokens gain gain gain step
1024 0.999813984 0.999813984 0.999813984 1
331776 1.00007929 1.00007929 1.00007929 324
663552 1.00005777 1.00005777 1.00005777 648
EOD
$l16 << EOD
# tokens gain gain gain step
1024 0.999939382 0.999939382 0.999939382 1
331776 0.999755681 0.999755681 0.999755681 324
663552 0.999901781 0.999901781 0.999901781 648
EOD
$l17 << EOD
# tokens gain gain gain step
1024 1.0000158 1.0000158 1.0000158 1
331776 1.00006285 1.00006285 1.00006285 324
663552 0.999104261 0.999104261 0.999104261 648
EOD
$l18 << EOD
# tokens gain gain gain step
1024 0.99968496 0.99968496 0.99968496 1
331776 0.999896467 0.999896467 0.999896467 324
663552 1.0002536 1.0002536 1.0002536 648
EOD
$l19 << EOD
# tokens gain gain gain step
1024 1.00005911 1.00005911 1.00005911 1
331776 0.999822746 0.999822746 0.999822746 324
663552 0.9991211 0.9991211 0.9991211 648
EOD
$l20 << EOD
# tokens gain gain gain step
1024 0.999801606 0.999801606 0.999801606 1
331776 1.0001314 1.0001314 1.0001314 324
663552 1.00007523 1.00007523 1.00007523 648
EOD
$l21 << EOD
# tokens gain gain gain step
1024 0.999837746 0.999837746 0.999837746 1
331776 0.999591549 0.999591549 0.999591549 324
663552 0.999742568 0.999742568 0.999742568 648
EOD
set title "Weight-gradient gain against fp32 over training: budget=1.0, recipe=bf16\n<dW, dW_fp32> / <dW_fp32, dW_fp32> per linear layer, mean over seeds"
set logscale x
set format x '%.0s%c'
set autoscale xfix
set key outside right font ',7'
set xlabel 'tokens (log scale)'
set ylabel 'wgrad gain'
plot $l0 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#0072B2' title 'layers.0.mlp.down_proj', \
     $l1 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#D55E00' title 'layers.0.mlp.gate_proj', \
     $l2 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#009E73' title 'layers.0.mlp.up_proj', \
     $l3 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#CC79A7' title 'layers.0.self_attn.k_proj', \
     $l4 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#E69F00' title 'layers.0.self_attn.o_proj', \
     $l5 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#56B4E9' title 'layers.0.self_attn.q_proj', \
     $l6 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#F0E442' title 'layers.0.self_attn.v_proj', \
     $l7 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#882255' title 'layers.1.mlp.down_proj', \
     $l8 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#44AA99' title 'layers.1.mlp.gate_proj', \
     $l9 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#999933' title 'layers.1.mlp.up_proj', \
     $l10 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#0072B2' title 'layers.1.self_attn.k_proj', \
     $l11 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#D55E00' title 'layers.1.self_attn.o_proj', \
     $l12 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#009E73' title 'layers.1.self_attn.q_proj', \
     $l13 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#CC79A7' title 'layers.1.self_attn.v_proj', \
     $l14 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#E69F00' title 'layers.2.mlp.down_proj', \
     $l15 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#56B4E9' title 'layers.2.mlp.gate_proj', \
     $l16 using 1:2 with linespoints lw 1.2 pt 8 ps 0.5 lc rgb '#F0E442' title 'layers.2.mlp.up_proj', \
     $l17 using 1:2 with linespoints lw 1.2 pt 9 ps 0.5 lc rgb '#882255' title 'layers.2.self_attn.k_proj', \
     $l18 using 1:2 with linespoints lw 1.2 pt 4 ps 0.5 lc rgb '#44AA99' title 'layers.2.self_attn.o_proj', \
     $l19 using 1:2 with linespoints lw 1.2 pt 5 ps 0.5 lc rgb '#999933' title 'layers.2.self_attn.q_proj', \
     $l20 using 1:2 with linespoints lw 1.2 pt 6 ps 0.5 lc rgb '#0072B2' title 'layers.2.self_attn.v_proj', \
     $l21 using 1:2 with linespoints lw 1.2 pt 7 ps 0.5 lc rgb '#D55E00' title 'lm_head', 1 with lines dt 2 lc rgb 'gray' notitle
unset output
