# test started on: Wed Nov 25 11:47:13 2026
# Linux version 6.12.117+deb12-amd64 (debian-kernel@lists.debian.org) (x86_64-linux-gnu-gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.12.117-1~deb12u1 (2026-11-14)
# console=ttyS0 panic=-1 quiet random.trust_cpu=on lsmode=demo lssecs=60 lsfuzz=60
# latscope version: 0.1.0
# sampling period: 1000 microseconds
# clocksource: tsc-early
# context: user
# load: none
# thread priority: 90
# thread affinity: CPU1-noisol
# C-state restricted
# duration (hhmmss): 00:00:10
# peak (hhmmss): 00:00:03
# OVERRUNS: 11
# min latency: 38.860
# avg latency: 62.107
# max latency: 3591.645
# sample count: 9994
# measured CPUs: 1
# preemption model: PREEMPT_DYNAMIC
# cpufreq governor: none
# stddev: 61.135
# 99% percentile: 116.000
# 99.9% percentile: <=720.896(-4.5%)
# 99.99% percentile: <=3591.645(-1.5%)
# 99.999% percentile: <=3591.645(-1.5%)
# 99.9999% percentile: <=3591.645(-1.5%)
# underflow (below 0 us): 0
# overflow (200 us and more): 57
# rows -1 and 200+: the samples below 0 us, and at 200 us and more
# columns: latency (us), sample count
38 1
39 0
40 4
41 5
42 7
43 7
44 9
45 25
46 33
47 33
48 68
49 188
50 257
51 285
52 417
53 495
54 488
55 508
56 680
57 789
58 876
59 1021
60 958
61 710
62 566
63 393
64 282
65 169
66 116
67 78
68 60
69 39
70 28
71 25
72 15
73 16
74 12
75 18
76 9
77 9
78 9
79 9
80 8
81 11
82 9
83 4
84 13
85 10
86 4
87 3
88 8
89 4
90 10
91 4
92 5
93 6
94 5
95 14
96 6
97 5
98 6
99 5
100 5
101 1
102 1
103 3
104 3
105 3
106 2
107 6
108 2
109 2
110 3
111 0
112 1
113 1
114 3
115 4
116 2
117 0
118 1
119 1
120 1
121 0
122 1
123 0
124 1
125 3
126 0
127 0
128 0
129 0
130 0
131 2
132 1
133 1
134 0
135 0
136 1
137 0
138 0
139 1
140 0
141 2
142 0
143 1
144 1
145 0
146 2
147 1
148 0
149 0
150 0
151 0
152 0
153 0
154 0
155 0
156 0
157 0
158 2
159 0
160 1
161 1
162 0
163 1
164 1
165 2
166 0
167 0
168 0
169 0
170 1
171 0
172 0
173 0
174 0
175 0
176 0
177 0
178 1
179 1
180 0
181 0
182 0
183 0
184 0
185 0
186 0
187 2
188 1
189 1
190 0
191 0
192 1
193 0
194 0
195 0
196 0
197 0
198 0
199 1
200+ 57
